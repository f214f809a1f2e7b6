package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The kernel's own IPv4 addresses, read with getifaddrs(3) in the calling thread's network namespace (it asks
 * over a netlink socket, which is created in the thread's namespace, so this works inside {@code Netns.run}).
 */
public final class InterfaceAddresses {
    /** One IPv4 address the kernel has on an interface (the name without an alias label, e.g. eth0 for eth0:1). */
    public record Ipv4(String ifname, Inet4Address address) {
    }

    /** IFF_LOWER_UP: the interface has carrier (not in SIOCGIFFLAGS' 16 bits; getifaddrs has all of dev_get_flags). */
    public static final int IFF_LOWER_UP = 0x10000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle GETIFADDRS = LINKER.downcallHandle(find("getifaddrs"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS), Linker.Option.captureCallState("errno"));
    private static final MethodHandle FREEIFADDRS = LINKER.downcallHandle(find("freeifaddrs"), FunctionDescriptor.ofVoid(ADDRESS));
    /** struct ifaddrs on x86-64: ifa_next at 0, ifa_name at 8, ifa_flags at 16, ifa_addr at 24. */
    private static final long IFA_NEXT = 0, IFA_NAME = 8, IFA_FLAGS = 16, IFA_ADDR = 24, IFADDRS_SIZE = 56;
    /** struct sockaddr_in: sin_family at 0, sin_addr at 4 (network order). */
    private static final long SIN_FAMILY = 0, SIN_ADDR = 4, SOCKADDR_IN_SIZE = 16;

    private InterfaceAddresses() {
    }

    private static MemorySegment find(String name) {
        return LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
    }

    /** Every IPv4 address the kernel owns in this namespace, on any interface. */
    public static List<Ipv4> ipv4() {
        List<Ipv4> out = new ArrayList<>();
        walk((name, flags, ip) -> {
            if (ip != null) out.add(new Ipv4(name, ip));
        });
        return out;
    }

    /**
     * The interface's flags as dev_get_flags(9) gives them, with IFF_LOWER_UP (carrier), IFF_UP and IFF_RUNNING; -1 if
     * there is no such interface in this namespace.
     */
    public static int flags(String ifname) {
        int[] flags = {-1};
        walk((name, f, ip) -> {
            if (name.equals(ifname) && flags[0] == -1) flags[0] = f;
        });
        return flags[0];
    }

    private interface Visitor {
        /** One entry: the interface (alias label cut off), its flags, and its IPv4 address or null (other families). */
        void entry(String ifname, int flags, Inet4Address ipv4);
    }

    private static void walk(Visitor v) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment head = arena.allocate(ADDRESS);
            MemorySegment capture = arena.allocate(CAPTURE_LAYOUT);
            int rc = (int) GETIFADDRS.invokeExact(capture, head);
            if (rc != 0) {
                int errno = (int) ERRNO.get(capture, 0L);
                throw new NativeException("getifaddrs", errno, "listing the kernel's addresses (" + Libc.strerror(errno) + ")");
            }
            MemorySegment list = head.get(ADDRESS, 0);
            try {
                for (MemorySegment p = list; !p.equals(MemorySegment.NULL); ) {
                    MemorySegment ifa = p.reinterpret(IFADDRS_SIZE);
                    String name = ifa.get(ADDRESS, IFA_NAME).reinterpret(Integer.MAX_VALUE).getString(0);
                    int colon = name.indexOf(':');
                    if (colon >= 0) name = name.substring(0, colon);
                    Inet4Address ip = null;
                    MemorySegment addr = ifa.get(ADDRESS, IFA_ADDR);
                    if (!addr.equals(MemorySegment.NULL)) {
                        MemorySegment sa = addr.reinterpret(SOCKADDR_IN_SIZE);
                        if (Short.toUnsignedInt(sa.get(JAVA_SHORT, SIN_FAMILY)) == LinuxConstants.AF_INET) {
                            ip = (Inet4Address) InetAddress.getByAddress(sa.asSlice(SIN_ADDR, 4).toArray(JAVA_BYTE));
                        }
                    }
                    v.entry(name, ifa.get(JAVA_INT, IFA_FLAGS), ip);
                    p = ifa.get(ADDRESS, IFA_NEXT);
                }
            } finally {
                FREEIFADDRS.invokeExact(list);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes always make an address
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The kernel's IPv4 addresses on interface {@code ifname} (alias labels such as eth0:1 count as eth0). */
    public static List<Inet4Address> ipv4(String ifname) {
        List<Inet4Address> out = new ArrayList<>();
        for (Ipv4 a : ipv4()) if (a.ifname().equals(ifname)) out.add(a.address());
        return out;
    }
}
