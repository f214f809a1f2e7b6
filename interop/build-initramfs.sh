#!/usr/bin/env bash
# Builds the interop guest: Debian's 6.1 kernel plus a busybox initramfs with rdma_rxe, virtio_net and
# rdma-core/perftest user space, for booting under qemu (TCG) next to urdma on a host bridge.
#
# Everything comes from Debian packages (apt-get download + dpkg -x); nothing is compiled.
# The result is cached outside the repository, keyed by a hash of this script and the exact package
# versions, so a rerun only costs the apt-cache look-ups (about a second).
#
# Usage: interop/build-initramfs.sh [--print-dir] [--force]
#   Prints the cache directory on the last line of stdout; it holds vmlinuz, initramfs.cpio.gz,
#   versions.txt (package = version) and init (the guest's init script, for reference).
# Env:   URDMA_CACHE (default ~/.cache/urdma), URDMA_INTEROP_KERNEL_ABI (default 6.1.0-56-amd64)
#
# Guest kernel command line (all optional):
#   urdma.ip=10.77.0.11/24   address of eth0          urdma.mtu=1500     MTU of eth0
#   urdma.gw=...             default route            urdma.cmd64=BASE64 run this shell command, print
#                                                                         its output and exit code on
#                                                                         the console, then power off
# Without urdma.cmd64 the guest serves commands on ttyS1 (see "Command channel" below) until told
# "poweroff". Readiness marker on both ttyS0 and ttyS1: "URDMA-GUEST-READY".
set -euo pipefail

KABI=${URDMA_INTEROP_KERNEL_ABI:-6.1.0-56-amd64}
CACHE_ROOT=${URDMA_CACHE:-$HOME/.cache/urdma}/interop
FORCE=0
for a in "$@"; do
  case "$a" in
    --force) FORCE=1 ;;
    --print-dir) ;;
    *) echo "build-initramfs: unknown argument $a" >&2; exit 2 ;;
  esac
done

# Packages whose files go into the guest. The kernel image gives vmlinuz and the modules; the rest is
# user space. Library packages are listed explicitly (not taken from the host) so that the guest is
# built from one consistent set of Debian packages; ldd over the staged tree checks nothing is missing.
KERNEL_PKG="linux-image-$KABI"
USER_PKGS=(busybox-static libc6 libibverbs1 ibverbs-providers ibverbs-utils perftest librdmacm1 rdmacm-utils
           libibumad3 libnl-3-200 libnl-route-3-200 libpci3 zlib1g libudev1 iproute2 libmnl0 libbsd0 libmd0 libcap2
           libbpf1 libelf1 coreutils libgcc-s1)

need_cmds=()
command -v apt-get >/dev/null || { echo "build-initramfs: needs apt-get (Debian)" >&2; exit 1; }
command -v cpio >/dev/null || need_cmds+=(cpio)
command -v qemu-system-x86_64 >/dev/null || need_cmds+=(qemu-system-x86)
if [ ${#need_cmds[@]} -gt 0 ]; then
  echo "build-initramfs: installing ${need_cmds[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_cmds[@]}" >&2
fi

# One apt-cache call for all packages (one per package costs ~1 s each on a busy machine).
all_versions() {
  apt-cache show --no-all-versions "$@" 2>/dev/null \
    | awk '/^Package: /{p=$2} /^Version: /{if (!(p in seen)) {seen[p]=1; print p "=" $2}}'
}

if ! all_versions "$KERNEL_PKG" | grep -q .; then
  echo "build-initramfs: apt lists do not know $KERNEL_PKG; running apt-get update" >&2
  apt-get update -qq >&2
fi

found=$(all_versions "$KERNEL_PKG" "${USER_PKGS[@]}")
versions=""
for p in "$KERNEL_PKG" "${USER_PKGS[@]}"; do
  v=$(grep -m1 "^$p=" <<<"$found" | cut -d= -f2-)
  [ -n "$v" ] || { echo "build-initramfs: package $p not found by apt-cache" >&2; exit 1; }
  versions+="$p=$v"$'\n'
done
self_hash=$(sha256sum "$0" | cut -c1-64)
key=$(printf '%s\n%s' "$self_hash" "$versions" | sha256sum | cut -c1-16)
OUT="$CACHE_ROOT/$key"

if [ "$FORCE" = 0 ] && [ -s "$OUT/initramfs.cpio.gz" ] && [ -s "$OUT/vmlinuz" ]; then
  echo "$OUT"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/urdma-initramfs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/debs" "$WORK/x" "$WORK/root"
echo "build-initramfs: downloading $(( ${#USER_PKGS[@]} + 1 )) packages" >&2
(cd "$WORK/debs" && apt-get download -qq -o APT::Sandbox::User=root "$KERNEL_PKG" "${USER_PKGS[@]}" >&2)
for d in "$WORK"/debs/*.deb; do dpkg -x "$d" "$WORK/x"; done

X="$WORK/x"
R="$WORK/root"
mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,usr/bin,usr/sbin,lib64,lib/modules}
mkdir -p "$R/lib/x86_64-linux-gnu" "$R/usr/lib/x86_64-linux-gnu/libibverbs" "$R/etc/libibverbs.d"

# busybox and its applets
cp "$X/bin/busybox" "$R/bin/busybox"
for applet in $("$R/bin/busybox" --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$R/bin/$applet"
done

# kernel modules, in the order they must be loaded
MODS=(
  kernel/crypto/crc32_generic.ko
  kernel/net/ipv4/udp_tunnel.ko
  kernel/net/ipv6/ip6_udp_tunnel.ko
  kernel/drivers/infiniband/core/ib_core.ko
  kernel/drivers/infiniband/core/ib_uverbs.ko
  kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko
  kernel/drivers/infiniband/core/ib_cm.ko
  kernel/drivers/infiniband/core/iw_cm.ko
  kernel/drivers/infiniband/core/rdma_cm.ko
  kernel/drivers/infiniband/core/rdma_ucm.ko
  kernel/drivers/virtio/virtio_ring.ko
  kernel/drivers/virtio/virtio.ko
  kernel/drivers/virtio/virtio_pci_legacy_dev.ko
  kernel/drivers/virtio/virtio_pci_modern_dev.ko
  kernel/drivers/virtio/virtio_pci.ko
  kernel/net/core/failover.ko
  kernel/drivers/net/net_failover.ko
  kernel/drivers/net/virtio_net.ko
)
: > "$R/lib/modules/load-order"
# configfs (rdma_cm's configuration) is a module in some kernel builds and built in in others
[ -f "$X/lib/modules/$KABI/kernel/fs/configfs/configfs.ko" ] && MODS=(kernel/fs/configfs/configfs.ko "${MODS[@]}")
for m in "${MODS[@]}"; do
  src="$X/lib/modules/$KABI/$m"
  [ -f "$src" ] || { echo "build-initramfs: module $m missing from $KERNEL_PKG" >&2; exit 1; }
  cp "$src" "$R/lib/modules/"
  basename "$m" >> "$R/lib/modules/load-order"
done
cp "$X/boot/vmlinuz-$KABI" "$WORK/vmlinuz"

# rdma-core and perftest user space
BINS=(usr/bin/ibv_devices usr/bin/ibv_devinfo usr/bin/ibv_rc_pingpong usr/bin/ibv_uc_pingpong
      usr/bin/ibv_ud_pingpong usr/bin/ibv_srq_pingpong
      usr/bin/ib_write_bw usr/bin/ib_write_lat usr/bin/ib_read_bw usr/bin/ib_read_lat
      usr/bin/ib_send_bw usr/bin/ib_send_lat usr/bin/ib_atomic_bw usr/bin/ib_atomic_lat
      usr/bin/rping usr/bin/udaddy usr/bin/rdma_server usr/bin/rdma_client usr/bin/ucmatose usr/bin/cmtime
      usr/bin/mckey
      usr/bin/rdma usr/bin/stdbuf)
for b in "${BINS[@]}"; do
  [ -f "$X/$b" ] || { echo "build-initramfs: $b missing" >&2; exit 1; }
  cp "$X/$b" "$R/$b"
done
# iproute2's ip as iproute2-ip, for what busybox's applet lacks (autojoin: rxe takes RoCEv2 from the kernel's UDP
# socket, so a multicast group reaches it only once eth0 has joined the group's IP). busybox's sh runs its own
# applet for a bare `ip` whatever PATH holds, so this one needs a name of its own; `ip` stays busybox's.
cp "$X/bin/ip" "$R/usr/bin/iproute2-ip"
cp "$X"/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so "$R/usr/lib/x86_64-linux-gnu/libibverbs/"
cp "$X/etc/libibverbs.d/rxe.driver" "$R/etc/libibverbs.d/"
# libgcc_s: glibc dlopens it for pthread_exit/cancel (rping's threads abort at exit without it)
cp -L "$X/lib/x86_64-linux-gnu/libgcc_s.so.1" "$R/lib/x86_64-linux-gnu/" 2>/dev/null \
  || cp -L "$X/usr/lib/x86_64-linux-gnu/libgcc_s.so.1" "$R/usr/lib/x86_64-linux-gnu/"
# stdbuf's preload library: commands run line-buffered, so a tool killed at the end keeps its output
mkdir -p "$R/usr/libexec/coreutils"
cp "$X/usr/libexec/coreutils/libstdbuf.so" "$R/usr/libexec/coreutils/"
cp "$X/lib64/ld-linux-x86-64.so.2" "$R/lib64/" 2>/dev/null \
  || cp -L "$X/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$R/lib64/"

# Shared libraries: resolve with the staged loader against the staged tree only, so a library the
# host happens to have cannot hide a missing package.
LP="$X/lib/x86_64-linux-gnu:$X/usr/lib/x86_64-linux-gnu"
LOADER="$X/lib64/ld-linux-x86-64.so.2"
[ -e "$LOADER" ] || LOADER="$X/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
declare -A libs=()
for f in "${BINS[@]/#/$X/}" "$X/bin/ip" "$X"/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so \
         "$X/usr/libexec/coreutils/libstdbuf.so"; do
  out=$(env -i "$LOADER" --inhibit-cache --library-path "$LP" --list "$f")
  if grep -q 'not found' <<<"$out"; then
    echo "build-initramfs: unresolved libraries for $f:" >&2; grep 'not found' <<<"$out" >&2; exit 1
  fi
  while read -r path; do
    case "$path" in "$X"/*) libs["$path"]=1 ;; /*) echo "build-initramfs: $f resolved $path outside the packages" >&2; exit 1 ;; esac
  done < <(awk '/=>/ {print $3}' <<<"$out")
done
for l in "${!libs[@]}"; do
  rel=${l#"$X"/}
  mkdir -p "$R/$(dirname "$rel")"
  cp -L "$l" "$R/$rel"
done
echo "/lib/x86_64-linux-gnu" > "$R/etc/ld.so.conf"

cat > "$R/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
EOF
echo "root:x:0:" > "$R/etc/group"
printf '127.0.0.1 localhost\n' > "$R/etc/hosts"

# ---------------------------------------------------------------------------------------------
# init: mount, load modules, bring up eth0 and rxe0, then one command or the command channel.
#
# Command channel (ttyS1, raw): the host writes one line per command:  "<id> <base64 of sh command>"
#   or "poweroff". <id> is [A-Za-z0-9_-]+. Each command runs in the background; when it ends the
#   guest writes, under a lock so that concurrent commands never interleave:
#     @@OUT <id> <base64 of the whole output, stdout and stderr merged>
#     @@EXIT <id> <exit code>
# ---------------------------------------------------------------------------------------------
cat > "$R/init" <<'INIT'
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null || true
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
say() { echo "urdma-guest: $*" > /dev/ttyS0; }

arg() { for w in $(cat /proc/cmdline); do case "$w" in "$1="*) echo "${w#*=}"; return;; esac; done; }
IP=$(arg urdma.ip); MTU=$(arg urdma.mtu); GW=$(arg urdma.gw); CMD64=$(arg urdma.cmd64)

for m in $(cat /lib/modules/load-order); do
  insmod "/lib/modules/$m" || say "insmod $m failed"
done
ip link set lo up
# IPv6 stays on (rxe's GID 0 is the link-local one, GID 1 the IPv4-mapped one), but without DAD,
# router and MLD solicitations, which only add noise to the captures
for c in default all; do
  echo 0 > /proc/sys/net/ipv6/conf/$c/dad_transmits
  echo 0 > /proc/sys/net/ipv6/conf/$c/router_solicitations
  echo 0 > /proc/sys/net/ipv6/conf/$c/accept_ra
done
i=0; while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
[ -n "$MTU" ] && ip link set eth0 mtu "$MTU"
ip link set eth0 up
[ -n "$IP" ] && ip addr add "$IP" dev eth0
[ -n "$GW" ] && ip route add default via "$GW"
rdma link add rxe0 type rxe netdev eth0 || say "rdma link add failed"
i=0; while [ ! -e /dev/infiniband/uverbs0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
say "eth0 $(cat /sys/class/net/eth0/address) ip=$IP mtu=$(cat /sys/class/net/eth0/mtu)"

if [ -n "$CMD64" ]; then
  CMD=$(echo "$CMD64" | base64 -d)
  say "URDMA-GUEST-READY"
  say "running: $CMD"
  sh -c "$CMD" > /dev/ttyS0 2>&1
  say "URDMA-GUEST-EXIT $?"
  poweroff -f
fi

# keep ttyS1 open from here on: a closed UART drops what the host sends
exec 3< /dev/ttyS1
stty -F /dev/ttyS1 raw -echo -echoe -echok -onlcr 2>/dev/null
run() { # id, command
  id=$1
  stdbuf -oL -eL sh -c "$2" > "/tmp/out.$id" 2>&1 < /dev/null 3<&- 4<&-
  rc=$?
  # busybox-static has no flock: mkdir is the lock, so concurrent commands never interleave
  until mkdir /tmp/tty.lock 2>/dev/null; do usleep 20000; done
  printf "@@OUT %s %s\n@@EXIT %s %s\n" "$id" "$(base64 -w0 < "/tmp/out.$id")" "$id" "$rc" > /dev/ttyS1
  rmdir /tmp/tty.lock
}
# The line reader must never have children: ash's read returns a partial line when SIGCHLD interrupts
# it, and the host's line trickles in through the UART. So a child-less reader copies whole lines from
# ttyS1 into a FIFO (one write per line, atomic below PIPE_BUF), and this shell reads them from there.
mkfifo /tmp/cmd.fifo
sh -c 'while :; do IFS= read -r l <&3 && printf "%s\n" "$l"; done' > /tmp/cmd.fifo &
exec 4< /tmp/cmd.fifo
say "URDMA-GUEST-READY"
echo "URDMA-GUEST-READY" > /dev/ttyS1
while :; do
  IFS= read -r line <&4 || continue
  line=$(echo "$line" | tr -d '\r')
  case "$line" in
    poweroff) say "powering off"; sync; poweroff -f ;;
    "") ;;
    *) id=${line%% *}; cmd=$(echo "${line#* }" | base64 -d 2>/dev/null)
       run "$id" "$cmd" & ;;
  esac
done
INIT
chmod 0755 "$R/init"

(cd "$R" && find . -print0 | sort -z | cpio --null -o -H newc --quiet --reproducible 2>/dev/null \
   || find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -6 -n > "$WORK/initramfs.cpio.gz"

mkdir -p "$OUT"
# keep this build and the previous one; older keys only take space (~13 MB each)
ls -1dt "$CACHE_ROOT"/*/ 2>/dev/null | tail -n +3 | xargs -r rm -rf
cp "$WORK/vmlinuz" "$WORK/initramfs.cpio.gz" "$OUT/"
cp "$R/init" "$OUT/init"
printf '%s' "$versions" > "$OUT/versions.txt"
echo "build-initramfs: built $OUT ($(du -h "$OUT/initramfs.cpio.gz" | cut -f1) initramfs)" >&2
echo "$OUT"
