package org.urdma.tools.rping;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.cli.Range;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code urdma rping}: librdmacm's rping (client or server) over urdma's rdma_cm, with rping's flags and output. */
@Command(name = "rping",
        description = {"rping over rdma_cm (the IB CM on QP1): talks to the stock rping of rdmacm-utils, either role.",
            "--link memory runs a server and a client in this JVM (" + RpingCommand.MEMORY_PINGS + " pings unless -C says otherwise).",
            "Exit code 1 when a persistent server (-s -P) saw connections fail."})
public final class RpingCommand implements Callable<Integer> {
    /** Pings of an in-memory run without -C: it has no peer to interrupt it, so it must end by itself. */
    static final int MEMORY_PINGS = 10;

    // rping's -V (validate) takes the standard mixin's version flag, which would drop the mixin: help by hand
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit")
    boolean help;

    @Option(names = "-s", description = "Server")
    boolean server;

    @Option(names = "-c", description = "Client")
    boolean client;

    @Option(names = "-a", paramLabel = "ADDR", description = "Client: the server's address; server: ignored (this port's --ip)")
    String address;

    @Range(min = 1, max = 65535)
    @Option(names = "-p", description = "Port (default: ${DEFAULT-VALUE})")
    int port = 7174;

    @Range(min = 0, max = Integer.MAX_VALUE)
    @Option(names = "-C", description = "Ping count (0: until interrupted; --link memory: " + MEMORY_PINGS + ") (default: ${DEFAULT-VALUE})")
    int count;

    @Range(min = 16, max = 1 << 30)
    @Option(names = "-S", description = "Ping data size (default: ${DEFAULT-VALUE})")
    int size = 64;

    @Option(names = "-P", description = "Server: persistent, one client after another until none comes within --timeout-s")
    boolean persistent;

    @Option(names = "-v", description = "Display ping data")
    boolean verbose;

    @Option(names = "-V", description = "Validate ping data")
    boolean validate;

    @Option(names = "-d", description = "Ignored (rping's debug)")
    boolean debug;

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, paramLabel = "tap:IF|afpacket:IF|memory",
            description = "The port (default: ${DEFAULT-VALUE})")
    String link = "memory";

    @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (tap/afpacket)")
    String ip;

    @Option(names = "--mac", description = "This port's MAC")
    String mac;

    @Range(min = 1, max = 3600)
    @Option(names = "--timeout-s", description = "Seconds to wait for the peer (default: ${DEFAULT-VALUE})")
    int timeoutS = 30;

    @Override
    public Integer call() throws Exception {
        Duration timeout = Duration.ofSeconds(timeoutS);
        if (link.equals("memory")) {
            if (count == 0) {
                count = MEMORY_PINGS;
                System.out.println("rping: " + MEMORY_PINGS + " pings in memory (-C N for more)");
            }
            try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
                CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() ->
                        new Rping(pair.first(), size, count, verbose, validate, timeout, System.out).server(port),
                        r -> Thread.ofPlatform().daemon().start(r));
                pair.first().rdmaCm();
                long t0 = System.nanoTime();
                int n = connectWithRetry(pair.second(), pair.first().rdmaCm().address(), timeout);
                served.get();
                System.out.printf("rping: %d pings of %d bytes in %.1f ms%n", n, size, (System.nanoTime() - t0) / 1e6);
                return 0;
            }
        }
        if (server == client) throw new IllegalArgumentException("-s or -c: give exactly one");
        if (ip == null) throw new IllegalArgumentException("--ip: required with --link " + link);
        DeviceOptions o = (link.startsWith("tap:") ? DeviceOptions.tap(link.substring(4)) : DeviceOptions.afPacket(link.substring(9))).withIp(ip);
        if (mac != null) o = o.withMac(mac);
        try (UrdmaDevice d = Urdma.open(o)) {
            Rping r = new Rping(d, size, count, verbose, validate, timeout, System.out);
            if (server && persistent) {
                Rping.Served s = r.persistentServer(port);
                if (s.failed() > 0) return 1; // its summary line said how many
            } else if (server) {
                r.server(port);
            } else {
                if (address == null) throw new IllegalArgumentException("-a: the server's address is required with -c");
                r.client(address, port);
            }
            System.out.println(server ? "rping server: done" : "rping client: done");
            return 0;
        }
    }

    /** The in-process server may not listen yet: a REJ (no listener) means try again, as a script would. */
    private int connectWithRetry(UrdmaDevice d, String serverIp, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return new Rping(d, size, count, verbose, validate, timeout, System.out).client(serverIp, port);
            } catch (org.urdma.transport.api.RdmaConnectException e) {
                if (!e.getMessage().contains("REJ reason 8") || System.nanoTime() > deadline) throw e;
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
            }
        }
    }
}
