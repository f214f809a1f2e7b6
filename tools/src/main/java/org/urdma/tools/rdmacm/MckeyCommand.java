package org.urdma.tools.rdmacm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.urdma.cli.Range;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.MulticastJoin;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code urdma mckey}: librdmacm's mckey, either role, over urdma's rdma_cm multicast join. */
@Command(name = "mckey", mixinStandardHelpOptions = true,
        description = {"librdmacm's mckey over urdma: UD multicast through rdma_join_multicast (RoCE: the MGID from the IP"
                + " address, DestQP 0xFFFFFF, Q_Key 0x01234567). Receiver by default, sender with -s; --link memory runs a"
                + " sender and -c receivers in this JVM."})
public final class MckeyCommand implements Callable<Integer> {
    /** RDMA_PS_UDP and RDMA_PS_IPOIB, mckey's two port spaces. */
    static final int PS_UDP = 0x0111;
    static final int PS_IPOIB = 0x0002;

    @Option(names = "-m", paramLabel = "ADDR", required = true, description = "The multicast address (IPv4 224.0.0.0/4 or IPv6 ff00::/8)")
    String address;

    @Option(names = "-s", description = "Sender (default: receiver)")
    boolean sender;

    @Option(names = "-b", paramLabel = "ADDR", description = "Bind address (accepted for mckey's command lines; the port's own is --ip)")
    String bind;

    @Range(min = 1, max = 56)
    @Option(names = "-c", description = "Connections: QPs joined (default: ${DEFAULT-VALUE})")
    int connections = 1;

    @Range(min = 1, max = 100_000)
    @Option(names = "-C", description = "Messages (default: ${DEFAULT-VALUE})")
    int count = 10;

    @Range(min = 1, max = 4096)
    @Option(names = "-S", description = "Message size, at most the path MTU (default: ${DEFAULT-VALUE})")
    int size = 100;

    @Option(names = "-p", paramLabel = "PS", description = "Port space: 0x111 UDP (default) or 0x2 IPoIB")
    String portSpace = "0x111";

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, paramLabel = "tap:IF|afpacket:IF|memory",
            description = "The port; memory runs a sender and the receivers in this JVM (default: ${DEFAULT-VALUE})")
    String link = "memory";

    @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (tap/afpacket)")
    String ip;

    @Option(names = "--mac", description = "This port's MAC")
    String mac;

    @Range(min = 0, max = 60_000)
    @Option(names = "--pause-ms", description = "Sender: pause after joining, as mckey's for the SM (default: 3000; 0 on memory)")
    Integer pauseMs;

    @Range(min = 1, max = 3600)
    @Option(names = "--timeout-s", description = "Seconds to wait for the messages (default: ${DEFAULT-VALUE})")
    int timeoutS = 30;

    @Override
    public Integer call() throws Exception {
        checkPortSpace();
        MulticastJoin.parse(address, "-m");
        Duration timeout = Duration.ofSeconds(timeoutS);
        if (link.equals("memory")) return inMemory(timeout);
        if (ip == null) throw new IllegalArgumentException("--ip: required with --link " + link);
        DeviceOptions o = (link.startsWith("tap:") ? DeviceOptions.tap(link.substring(4)) : DeviceOptions.afPacket(link.substring(9))).withIp(ip);
        if (mac != null) o = o.withMac(mac);
        try (UrdmaDevice d = Urdma.open(o)) {
            role(d, sender, pauseMs != null ? pauseMs : 3000, timeout);
        }
        return 0;
    }

    private void checkPortSpace() {
        int ps;
        try {
            ps = Integer.decode(portSpace);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-p: '" + portSpace + "' is no number (0x111 for UDP, 0x2 for IPoIB)");
        }
        if (ps == PS_IPOIB) throw new IllegalArgumentException("-p: RDMA_PS_IPOIB joins through an InfiniBand SA; a RoCE port joins 0x111 (UDP)");
        if (ps != PS_UDP) throw new IllegalArgumentException("-p: 0x" + Integer.toHexString(ps) + " is no mckey port space (0x111 for UDP, 0x2 for IPoIB)");
    }

    /** One role with {@code connections} nodes on {@code d}, as mckey's run(). */
    private void role(UrdmaDevice d, boolean send, int pause, Duration timeout) throws InterruptedException {
        System.out.printf("mckey: starting %s%n", send ? "client" : "server");
        List<Mckey> nodes = new ArrayList<>();
        try {
            System.out.println("mckey: joining");
            for (int i = 0; i < connections; i++) {
                Mckey m = new Mckey(d, count, size, System.out);
                nodes.add(m);
                m.join(address, send);
            }
            if (send) {
                if (pause > 0) Thread.sleep(pause);
                System.out.println("initiating data transfers");
                for (Mckey m : nodes) m.send(timeout);
            } else {
                System.out.println("receiving data transfers");
                for (Mckey m : nodes) m.receive(timeout);
            }
            System.out.println("data transfers complete");
        } finally {
            for (Mckey m : nodes) m.close();
        }
        System.out.println("test complete");
        System.out.println("return status 0");
    }

    /** Receivers on one device of a memory pair, the sender on the other, once every receiver has joined. */
    private int inMemory(Duration timeout) throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            List<Mckey> receivers = new ArrayList<>();
            try {
                for (int i = 0; i < connections; i++) {
                    Mckey m = new Mckey(pair.first(), count, size, System.out);
                    receivers.add(m);
                    m.join(address, false);
                }
                CompletableFuture<Integer> got = CompletableFuture.supplyAsync(() -> {
                    int n = 0;
                    for (Mckey m : receivers) n += m.receive(timeout);
                    return n;
                }, r -> Thread.ofPlatform().daemon().start(r));
                try (Mckey s = new Mckey(pair.second(), count, size, System.out)) {
                    s.join(address, true);
                    if (pauseMs != null && pauseMs > 0) Thread.sleep(pauseMs);
                    s.send(timeout);
                }
                int n = got.join();
                System.out.printf("mckey: %d receivers got %d messages of %d bytes%n", connections, n, size);
            } finally {
                for (Mckey m : receivers) m.close();
            }
        }
        return 0;
    }
}
