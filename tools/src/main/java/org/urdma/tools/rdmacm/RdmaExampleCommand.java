package org.urdma.tools.rdmacm;

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

        /** This role on an opened device. */
        abstract void runOn(UrdmaDevice d, Duration timeout);

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
                runOn(d, timeout);
                return 0;
            }
        }
    }

    /** rdma_server. */
    @Command(name = "rdma_server", mixinStandardHelpOptions = true,
            description = {"librdmacm's rdma_server over urdma's rdma_cm: waits for one rdma_client, receives 16 bytes, sends 16."})
    public static final class Server extends Base {
        @Override
        void runOn(UrdmaDevice d, Duration timeout) {
            new RdmaExample(d, timeout, System.out).server(port);
        }
    }

    /** rdma_client. */
    @Command(name = "rdma_client", mixinStandardHelpOptions = true,
            description = {"librdmacm's rdma_client over urdma's rdma_cm: connects to an rdma_server, sends 16 bytes, receives 16."})
    public static final class Client extends Base {
        @Option(names = "-s", paramLabel = "ADDR", description = "The server's address (required unless --link memory)")
        String server;

        @Override
        void runOn(UrdmaDevice d, Duration timeout) {
            if (server == null) throw new IllegalArgumentException("-s: the server's address is required");
            new RdmaExample(d, timeout, System.out).client(server, port);
        }
    }

    /** udaddy. */
    @Command(name = "udaddy", mixinStandardHelpOptions = true,
            description = {"librdmacm's udaddy over urdma's rdma_cm: UD through SIDR (RDMA_PS_UDP); server without -s, client with it."})
    public static final class UdaddyCommand extends Base {
        @Option(names = "-s", paramLabel = "ADDR", description = "Client: the server's address; none: act as the server")
        String server;

        @Range(min = 1, max = 1000)
        @Option(names = "-C", description = "Messages each way (default: ${DEFAULT-VALUE})")
        int count = 10;

        @Range(min = 1, max = 4096)
        @Option(names = "-S", description = "Message size (default: ${DEFAULT-VALUE})")
        int size = 100;

        UdaddyCommand() {
            port = 7174;
        }

        @Override
        public Integer call() {
            if (link.equals("memory")) {
                Duration timeout = Duration.ofSeconds(timeoutS);
                try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
                     Udaddy s = new Udaddy(pair.first(), count, size, timeout, System.out);
                     Udaddy c = new Udaddy(pair.second(), count, size, timeout, System.out)) {
                    pair.first().rdmaCm();
                    CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> s.server(port), r -> Thread.ofPlatform().daemon().start(r));
                    try {
                        Thread.sleep(200); // listening
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return 1;
                    }
                    c.client(pair.first().rdmaCm().address(), port);
                    served.join();
                    return 0;
                }
            }
            return super.call();
        }

        @Override
        void runOn(UrdmaDevice d, Duration timeout) {
            try (Udaddy u = new Udaddy(d, count, size, timeout, System.out)) {
                if (server == null) {
                    u.server(port);
                } else {
                    u.client(server, port);
                }
            }
        }
    }
}
