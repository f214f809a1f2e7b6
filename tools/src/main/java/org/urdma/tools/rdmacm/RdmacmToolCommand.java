package org.urdma.tools.rdmacm;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.urdma.cli.Range;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code urdma ucmatose} and {@code urdma cmtime}: rdmacm-utils' connection test and timing tools over urdma's rdma_cm,
 * with their flags: {@code -s ADDR} makes the client, no {@code -s} the server.
 */
public final class RdmacmToolCommand {
    private RdmacmToolCommand() {
    }

    /** What both tools take besides the port options of {@link RdmaExampleCommand}. */
    abstract static class Tool extends RdmaExampleCommand.Base {
        @Option(names = "-s", paramLabel = "ADDR", description = "Client: the server's address; none: act as the server")
        String server;

        @Option(names = "-b", paramLabel = "ADDR", description = "Ignored: the bind address is this port's --ip")
        String bind;

        /** The server role; returns its exit code. */
        abstract int serve(UrdmaDevice d, Duration timeout);

        /** The client role; returns its exit code. */
        abstract int connect(UrdmaDevice d, String address, Duration timeout);

        @Override
        void runOn(UrdmaDevice d, Duration timeout) {
            throw new UnsupportedOperationException("runOn: " + getClass().getSimpleName() + " answers through call");
        }

        @Override
        public Integer call() {
            Duration timeout = Duration.ofSeconds(timeoutS);
            if (link.equals("memory")) {
                try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
                    pair.first().rdmaCm();
                    CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> serve(pair.first(), timeout),
                            r -> Thread.ofPlatform().daemon().start(r));
                    waitListening(pair.first());
                    int c = connect(pair.second(), pair.first().rdmaCm().address(), timeout);
                    int s = served.join();
                    return Math.max(c, s);
                }
            }
            if (ip == null) throw new IllegalArgumentException("--ip: required with --link " + link);
            DeviceOptions o = (link.startsWith("tap:") ? DeviceOptions.tap(link.substring(4)) : DeviceOptions.afPacket(link.substring(9))).withIp(ip);
            if (mac != null) o = o.withMac(mac);
            try (UrdmaDevice d = Urdma.open(o)) {
                return server == null ? serve(d, timeout) : connect(d, server, timeout);
            }
        }

        /** The in-process server listens a moment after its thread starts: the client must not come before. */
        private static void waitListening(UrdmaDevice d) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** ucmatose. */
    @Command(name = "ucmatose", mixinStandardHelpOptions = true,
            description = {"rdmacm-utils' ucmatose over urdma's rdma_cm, either role.",
                "-c connections, each carrying -C messages of -S bytes: the server's first, then the client's replies;",
                "the server disconnects. Server without -s, client with it."})
    public static final class Ucmatose extends Tool {
        @Range(min = 1, max = 10000)
        @Option(names = "-c", description = "Connections (default: ${DEFAULT-VALUE})")
        int connections = 1;

        @Range(min = 0, max = 100000)
        @Option(names = "-C", description = "Messages each way on each connection (default: ${DEFAULT-VALUE})")
        int count = 10;

        @Range(min = 0, max = 1 << 20)
        @Option(names = "-S", description = "Message size; 0: no messages (default: ${DEFAULT-VALUE})")
        int size = 100;

        @Override
        int serve(UrdmaDevice d, Duration timeout) {
            new org.urdma.tools.rdmacm.Ucmatose(d, connections, count, size, timeout, System.out).server(port);
            return 0;
        }

        @Override
        int connect(UrdmaDevice d, String address, Duration timeout) {
            new org.urdma.tools.rdmacm.Ucmatose(d, connections, count, size, timeout, System.out).client(address, port);
            return 0;
        }
    }

    /** cmtime. */
    @Command(name = "cmtime", mixinStandardHelpOptions = true,
            description = {"rdmacm-utils' cmtime (rdma-core 44's) over urdma's rdma_cm, either role.",
                "-c connections made and torn down at once, each step timed.",
                "Server without -s (stops after -c connections came and went), client with it.",
                "Exit code 1 when a connection failed."})
    public static final class CmtimeCommand extends Tool {
        @Range(min = 1, max = 100000)
        @Option(names = "-c", description = "Connections (default: ${DEFAULT-VALUE})")
        int connections = 100;

        @Override
        int serve(UrdmaDevice d, Duration timeout) {
            return new Cmtime(d, connections, timeout, System.out).server(port) > 0 ? 1 : 0;
        }

        @Override
        int connect(UrdmaDevice d, String address, Duration timeout) {
            return new Cmtime(d, connections, timeout, System.out).client(address, port) > 0 ? 1 : 0;
        }
    }
}
