package org.urdma.tools.pingpong;

import java.util.Locale;
import org.urdma.cli.Range;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code urdma pingpong}: rdma-core's ibv_rc_pingpong / ibv_uc_pingpong / ibv_ud_pingpong on a urdma port, with the
 * tools' options, out-of-band exchange (52-byte address message on TCP 18515), QP settings and summary lines, so
 * either side can be the stock tool.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true,
        description = "ibv_{rc,uc,ud}_pingpong on a urdma port (server when no PEER is given).")
public final class PingpongCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "PEER", description = "Server to connect to; none = act as the server")
    String peer;

    @Option(names = "--transport", description = "rc, uc or ud (default: ${DEFAULT-VALUE})")
    String transport = "rc";

    @Range(min = 1, max = 65535)
    @Option(names = {"-p", "--port"}, description = "Listen on / connect to TCP port (default: ${DEFAULT-VALUE})")
    int port = 18515;

    @Option(names = {"-d", "--ib-dev"}, description = "Ignored (the device is the --link port)")
    String ibDev;

    @Range(min = 1, max = 1, why = "one port")
    @Option(names = {"-i", "--ib-port"}, description = "Ignored (one port)")
    int ibPort = 1;

    @Range(min = 1, max = Integer.MAX_VALUE)
    @Option(names = {"-s", "--size"}, description = "Size of message to exchange (default 4096; 2048 for ud)")
    Integer size;

    @Range(oneOf = {256, 512, 1024, 2048, 4096})
    @Option(names = {"-m", "--mtu"}, description = "Path MTU (default: ${DEFAULT-VALUE})")
    int mtu = 1024;

    @Range(min = 2, max = 16384)
    @Option(names = {"-r", "--rx-depth"}, description = "Number of receives to post at a time (default: ${DEFAULT-VALUE})")
    int rxDepth = 500;

    @Range(min = 1)
    @Option(names = {"-n", "--iters"}, description = "Number of exchanges (default: ${DEFAULT-VALUE})")
    int iters = 1000;

    @Range(min = 0, max = 15)
    @Option(names = {"-l", "--sl"}, description = "Service level value (default: ${DEFAULT-VALUE})")
    int sl = 0;

    @Option(names = {"-e", "--events"}, description = "Sleep on CQ events (default poll)")
    boolean events;

    @Range(min = 0, max = 255)
    @Option(names = {"-g", "--gid-idx"}, description = "Local port GID index: 1 = IPv4-mapped RoCEv2 (default), 0 = RoCEv1 link-local")
    int gidIndex = 1;

    @Option(names = {"-c", "--chk"}, description = "Validate received buffer (the whole buffer: page starts 0, the rest 0x7b, as the stock tools send)")
    boolean check;

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, required = true, paramLabel = "tap:IF|afpacket:IF", description = "The port: a TAP or an AF_PACKET interface")
    String link;

    @Option(names = "--ip", required = true, paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (not one the kernel owns)")
    String ip;

    @Option(names = "--mac", description = "This port's MAC (default: the interface's for afpacket, a fixed local one for tap)")
    String mac;

    @Option(names = "--ecn", converter = org.urdma.cli.EcnOption.class, paramLabel = "not-ect|ect0|ect1",
            description = "Not in the stock tool: ECN codepoint of the RoCEv2 frames, like a NIC's setting (default: ect0)")
    org.urdma.transport.link.Ecn ecn = org.urdma.transport.link.Ecn.ECT0;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Capture every frame this side sends and receives")
    String pcap;

    @Option(names = "--pcapng", paramLabel = "FILE", description = "As --pcap, in pcapng (Wireshark's default; nanosecond timestamps)")
    String pcapng;

    @Option(names = "--counters", arity = "0..1", fallbackValue = "", paramLabel = "DIR", description = "Publish the engine "
            + "counters in a memory-mapped file in DIR (default: $URDMA_STAT_DIR or /dev/shm/urdma-USER) for 'urdma stat'")
    String counters;

    @Option(names = "--journal", arity = "0..1", fallbackValue = "", paramLabel = "DIR", description = "Journal engine "
            + "events into DIR (default: engine-DEV-PID.journal beside the counters files) for 'urdma journal'")
    String journal;

    @Option(names = "--srq", description = "ibv_srq_pingpong: -q RC QPs receive from one shared receive queue (its exchange: 256 "
            + "address messages each way; -n counts exchanges over all QPs)")
    boolean srq;

    @Range(min = 1, max = 256, why = "ibv_srq_pingpong's MAX_QP")
    @Option(names = {"-q", "--num-qp"}, description = "With --srq: number of QPs (default: ${DEFAULT-VALUE})")
    int numQp = 16;

    @Range(min = 0)
    @Option(names = "--recv-delay-ms", paramLabel = "MS", description = {
            "Not in the stock tool: post the receives only MS ms after the address exchange (default: ${DEFAULT-VALUE},",
            "before it, as the tool does). The peer's first SEND then finds no receive: RC answers with RNR NAKs",
            "(timer min_rnr_timer 12 = 0.64 ms) and the peer retries (rnr_retry 7 = forever); UC/UD drop it."})
    int recvDelayMs = 0;

    @Range(min = 1)
    @Option(names = "--timeout-s", description = "Seconds to wait for the peer (exchange and each completion) (default: ${DEFAULT-VALUE})")
    int waitSeconds = 60;

    @Override
    public Integer call() {
        return run(System.out);
    }

    /** Runs the test with its report on {@code out}; the exit code (0 = every exchange completed and, with -c, valid). */
    int run(java.io.PrintStream out) {
        Pingpong.Transport t = switch (transport.toLowerCase(Locale.ROOT)) {
            case "rc" -> Pingpong.Transport.RC;
            case "uc" -> Pingpong.Transport.UC;
            case "ud" -> Pingpong.Transport.UD;
            default -> throw new IllegalArgumentException("--transport: rc, uc or ud, was '" + transport + "'");
        };
        if (!srq && numQp != 16) throw new IllegalArgumentException("-q: applies with --srq (ibv_srq_pingpong)");
        if (srq && t != Pingpong.Transport.RC) throw new IllegalArgumentException("--srq: ibv_srq_pingpong runs RC, not " + transport);
        if (srq && (check || recvDelayMs > 0)) throw new IllegalArgumentException((check ? "-c" : "--recv-delay-ms") + ": not with --srq");
        int s = size != null ? size : t == Pingpong.Transport.UD ? 2048 : 4096;
        return new Pingpong(this, t, s).run(out);
    }
}
