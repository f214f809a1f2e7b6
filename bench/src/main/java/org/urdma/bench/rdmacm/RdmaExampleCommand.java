package org.urdma.bench.rdmacm;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.urdma.cli.Range;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code urdma rdma_server} and {@code urdma rdma_client}: librdmacm's example pair, either role, over urdma's rdma_cm. */
public final class RdmaExampleCommand {
    private RdmaExampleCommand() {
    }

    /** What both roles take. */
    abstract static class Base implements Callable<Integer> {
        @Range(min = 1, max = 65535)
        @Option(names = "-p", description = "Port (default: ${DEFAULT-VALUE})")
        int port = 7471;

        @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, paramLabel = "tap:IF|afpacket:IF|memory",
                description = "The port; memory runs both examples in this JVM (default: ${DEFAULT-VALUE})")
        String link = "memory";

        @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (tap/afpacket)")
        String ip;

        @Option(names = "--mac", description = "This port's MAC")
        String mac;

        @Range(min = 1, max = 3600)
        @Option(names = "--timeout-s", description = "Seconds to wait for the peer (default: ${DEFAULT-VALUE})")
        int timeoutS = 30;

        abstract void run(RdmaExample e);

        @Override
        public Integer call() {
            Duration timeout = Duration.ofSeconds(timeoutS);
            if (link.equals("memory")) {
                try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
                    pair.first().rdmaCm();
                    CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                            () -> new RdmaExample(pair.first(), timeout, System.out).server(port), r -> Thread.ofPlatform().daemon().start(r));
                    new RdmaExample(pair.second(), timeout, System.out).client(pair.first().rdmaCm().address(), port);
                    served.join();
                    return 0;
                }
            }
            if (ip == null) throw new IllegalArgumentException("--ip: required with --link " + link);
            DeviceOptions o = (link.startsWith("tap:") ? DeviceOptions.tap(link.substring(4)) : DeviceOptions.afPacket(link.substring(9))).withIp(ip);
            if (mac != null) o = o.withMac(mac);
            try (UrdmaDevice d = Urdma.open(o)) {
                run(new RdmaExample(d, timeout, System.out));
                return 0;
            }
        }
    }

    /** rdma_server. */
    @Command(name = "rdma_server", mixinStandardHelpOptions = true,
            description = {"librdmacm's rdma_server over urdma's rdma_cm: waits for one rdma_client, receives 16 bytes, sends 16."})
    public static final class Server extends Base {
        @Override
        void run(RdmaExample e) {
            e.server(port);
        }
    }

    /** rdma_client. */
    @Command(name = "rdma_client", mixinStandardHelpOptions = true,
            description = {"librdmacm's rdma_client over urdma's rdma_cm: connects to an rdma_server, sends 16 bytes, receives 16."})
    public static final class Client extends Base {
        @Option(names = "-s", paramLabel = "ADDR", description = "The server's address (required unless --link memory)")
        String server;

        @Override
        void run(RdmaExample e) {
            if (server == null) throw new IllegalArgumentException("-s: the server's address is required");
            e.client(server, port);
        }
    }
}
