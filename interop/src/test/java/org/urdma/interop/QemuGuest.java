package org.urdma.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One qemu (TCG) guest booted from {@link GuestImage} with its virtio NIC on a TAP in a {@link Netns}.
 * ttyS0 (kernel and init messages) goes to console.log; ttyS1 is the command channel of the guest's
 * init (see interop/build-initramfs.sh): one line "ID BASE64(cmd)" per command, answered by
 * "@@OUT ID BASE64(output)" and "@@EXIT ID CODE" when the command ends.
 */
final class QemuGuest implements AutoCloseable {

    static final String READY = "URDMA-GUEST-READY";

    private final String name;
    private final Process qemu;
    private final Path consoleLog;
    private final Path controlSocket;
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<Long> ready = new CompletableFuture<>();
    private final Map<String, CompletableFuture<GuestResult>> pending = new ConcurrentHashMap<>();
    private final Map<String, String> commands = new ConcurrentHashMap<>();
    private final Map<String, String> outputs = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private volatile SocketChannel channel;
    private volatile OutputStream control;
    private volatile boolean closing;

    private QemuGuest(String name, Process qemu, Path consoleLog, Path controlSocket) {
        this.name = name;
        this.qemu = qemu;
        this.consoleLog = consoleLog;
        this.controlSocket = controlSocket;
    }

    /**
     * Boots a guest: eth0 gets {@code cidr} and {@code mtu}, rxe0 is created on it. Returns at once;
     * call {@link #awaitReady}.
     */
    static QemuGuest boot(Netns ns, GuestImage image, String name, String tap, String mac, String cidr, int mtu,
            Path workDir) throws IOException {
        Files.createDirectories(workDir);
        Path console = workDir.resolve(name + "-console.log");
        Path ctl = workDir.resolve(name + ".sock");
        Files.deleteIfExists(ctl);
        String append = "console=ttyS0 quiet panic=-1 urdma.ip=" + cidr + " urdma.mtu=" + mtu;
        List<String> cmd = ns.exec("qemu-system-x86_64",
                "-accel", "tcg,thread=multi", "-cpu", "max", "-m", "768", "-smp", "1",
                "-nographic", "-no-reboot", "-monitor", "none", "-display", "none",
                "-kernel", image.kernel().toString(), "-initrd", image.initramfs().toString(),
                "-append", append,
                "-netdev", "tap,id=n0,ifname=" + tap + ",script=no,downscript=no",
                "-device", "virtio-net-pci,netdev=n0,mac=" + mac + ",romfile=",
                "-serial", "file:" + console,
                "-serial", "unix:" + ctl + ",server=on,wait=off");
        Process p = ns.start(new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(workDir.resolve(name + "-qemu.log").toFile()));
        QemuGuest g = new QemuGuest(name, p, console, ctl);
        Thread.ofPlatform().daemon().name("guest-" + name).start(g::readControl);
        return g;
    }

    String name() {
        return name;
    }

    Path consoleLog() {
        return consoleLog;
    }

    /** Waits for the ready marker; returns the boot time (qemu start to marker). */
    Duration awaitReady(Duration timeout) throws IOException, InterruptedException {
        try {
            return Duration.ofNanos(ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            throw new IOException("guest " + name + " not ready after " + timeout + "; console:\n" + consoleTail());
        } catch (ExecutionException e) {
            throw new IOException("guest " + name + " failed before ready: " + e.getCause().getMessage()
                    + "; console:\n" + consoleTail(), e.getCause());
        }
    }

    /** Starts a shell command in the guest; the future completes when it exits. */
    CompletableFuture<GuestResult> start(String command) throws IOException {
        String id = "c" + ids.incrementAndGet();
        CompletableFuture<GuestResult> f = new CompletableFuture<>();
        pending.put(id, f);
        commands.put(id, command);
        String line = id + " " + Base64.getEncoder().encodeToString(command.getBytes(StandardCharsets.UTF_8)) + "\n";
        synchronized (this) {
            if (control == null) {
                throw new IOException("guest " + name + " is not ready");
            }
            control.write(line.getBytes(StandardCharsets.US_ASCII));
            control.flush();
        }
        return f;
    }

    /** Runs a shell command in the guest and waits for its exit. */
    GuestResult run(String command, Duration timeout) throws IOException, InterruptedException {
        CompletableFuture<GuestResult> f = start(command);
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("guest " + name + ": '" + command + "' did not finish in " + timeout);
        } catch (ExecutionException e) {
            throw new IOException("guest " + name + ": '" + command + "' failed: " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    /**
     * Waits in the guest until an rdma_cm id listens on {@code port} (a stock rdma_server, udaddy, rping... is up):
     * the kernel lists it in {@code rdma resource show cm_id} in state LISTEN.
     */
    void awaitRdmaCmListening(int port, Duration timeout) throws IOException, InterruptedException {
        int tries = (int) Math.max(1, timeout.toMillis() / 200);
        GuestResult r = run("i=0; while [ $i -lt " + tries + " ]; do rdma resource show cm_id | grep 'state LISTEN' | grep -q ':" + port
                + " ' && exit 0; usleep 200000; i=$((i+1)); done; rdma resource show cm_id; exit 1", timeout.plusSeconds(10));
        if (r.exitCode() != 0) {
            throw new IOException("guest " + name + ": no rdma_cm id listens on port " + port + " after " + timeout + ":\n" + r.output());
        }
    }

    /** Waits in the guest until something listens on a TCP port (a perftest/pingpong server is up). */
    void awaitListening(int port, Duration timeout) throws IOException, InterruptedException {
        int tries = (int) Math.max(1, timeout.toMillis() / 200);
        GuestResult r = run("i=0; while [ $i -lt " + tries + " ]; do netstat -ltn | grep -q ':" + port
                + " ' && exit 0; usleep 200000; i=$((i+1)); done; exit 1", timeout.plusSeconds(10));
        if (r.exitCode() != 0) {
            throw new IOException("guest " + name + ": nothing listens on port " + port + " after " + timeout);
        }
    }

    private void readControl() {
        try {
            SocketChannel ch = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ch == null) {
                try {
                    ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                    ch.connect(UnixDomainSocketAddress.of(controlSocket));
                } catch (IOException e) {
                    if (ch != null) {
                        ch.close();
                    }
                    ch = null;
                    if (!qemu.isAlive() || System.nanoTime() > deadline) {
                        throw new IOException("cannot connect to " + controlSocket + " (qemu alive: "
                                + qemu.isAlive() + ")", e);
                    }
                    Thread.sleep(50);
                }
            }
            channel = ch;
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(ch),
                    StandardCharsets.US_ASCII));
            OutputStream out = Channels.newOutputStream(ch);
            String line;
            while ((line = in.readLine()) != null) {
                line = line.strip();
                if (line.endsWith(READY) && !ready.isDone()) {
                    synchronized (this) {
                        control = out;
                    }
                    ready.complete(System.nanoTime() - startNanos);
                } else if (line.startsWith("@@OUT ")) {
                    String[] f = line.split(" ", 3);
                    outputs.put(f[1], f.length > 2 ? new String(Base64.getDecoder().decode(f[2]),
                            StandardCharsets.UTF_8) : "");
                } else if (line.startsWith("@@EXIT ")) {
                    String[] f = line.split(" ");
                    CompletableFuture<GuestResult> fut = pending.remove(f[1]);
                    if (fut != null) {
                        fut.complete(new GuestResult(commands.remove(f[1]), Integer.parseInt(f[2]),
                                outputs.getOrDefault(f[1], "")));
                    }
                }
            }
            throw new IOException("guest " + name + " closed its command channel");
        } catch (IOException | RuntimeException e) {
            fail(e);
        } catch (InterruptedException e) {
            fail(e);
            Thread.currentThread().interrupt();
        }
    }

    private void fail(Exception e) {
        ready.completeExceptionally(e);
        pending.values().forEach(f -> f.completeExceptionally(e));
    }

    String consoleTail() {
        try {
            List<String> lines = Files.readAllLines(consoleLog, StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no console log: " + e.getMessage() + ")";
        }
    }

    /** Asks the guest to power off, then kills qemu if it has not exited within a few seconds. */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        try {
            synchronized (this) {
                if (control != null) {
                    control.write("poweroff\n".getBytes(StandardCharsets.US_ASCII));
                    control.flush();
                }
            }
            qemu.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // the guest may already be gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Interop.kill(qemu, Duration.ofSeconds(3));
        try {
            if (channel != null) {
                channel.close();
            }
            Files.deleteIfExists(controlSocket);
        } catch (IOException e) {
            // best effort
        }
    }
}
