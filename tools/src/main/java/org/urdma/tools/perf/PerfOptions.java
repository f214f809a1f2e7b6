package org.urdma.tools.perf;

import org.urdma.transport.cm.WanOffer;

import picocli.CommandLine.Option;
import org.urdma.cli.Range;

/** perftest's common flags (ib_write_bw, ib_send_lat, …) plus urdma's link and driver choices. */
public final class PerfOptions {
    @Range(min = 1, max = Integer.MAX_VALUE, why = "perftest's limits")
    @Option(names = {"-s", "--size"}, description = "Message size in bytes (default: ${DEFAULT-VALUE})")
    int size = -1;

    @Option(names = {"-a", "--all"}, description = "Run sizes from 2 up to 2^23 bytes")
    boolean all;

    @Range(min = 5, max = 100_000_000, why = "perftest's limits")
    @Option(names = {"-n", "--iters"}, description = "Iterations (default: perftest's, 5000 for write-bw and 1000 for every other test)")
    int iters = -1;

    @Range(oneOf = {256, 512, 1024, 2048, 4096})
    @Option(names = {"-m", "--mtu"}, description = "Path MTU: 256..4096 (default: ${DEFAULT-VALUE})")
    public int mtu = 4096;

    @Range(min = 1, max = 16384)
    @Option(names = {"-t", "--tx-depth"}, description = "Outstanding send requests (default: perftest's, 128 for bandwidth tests "
            + "and 1 for latency tests, at most -n)")
    int txDepth = -1;

    @Option(names = {"-c", "--connection"}, description = "RC, UC or UD where the test allows it (default: ${DEFAULT-VALUE})")
    String connection = "RC";

    @Range(min = 1)
    @Option(names = {"-D", "--duration"}, description = "Run each size for this many seconds instead of -n iterations (bandwidth tests)")
    int duration;

    @Range(min = 1, max = 32)
    @Option(names = {"-q", "--qp"}, description = "Number of QPs (default: ${DEFAULT-VALUE})")
    int qps = 1;

    @Range(min = 1, max = 16, why = "urdma's max_qp_rd_atom")
    @Option(names = {"-o", "--outs"}, description = "RDMA READs / atomics this side lets the peer have outstanding (perftest's out_reads, "
            + "sent in the key message) (default: ${DEFAULT-VALUE})")
    int outReads = 16;

    @Range(min = 1, max = 1024)
    @Option(names = {"-l", "--post_list"}, description = "Bandwidth tests: post requests in lists of this many, the last of each "
            + "signaled (cq_mod = post list) (default: ${DEFAULT-VALUE})")
    int postList = 1;

    @Range(min = 0, max = 256, why = "urdma's max_inline_data")
    @Option(names = {"-I", "--inline_size"}, description = "Bandwidth tests: WRITEs and SENDs of at most this many bytes are posted "
            + "INLINE (default: ${DEFAULT-VALUE})")
    int inlineSize = 0;

    @Option(names = {"-b", "--bidirectional"}, description = "write-bw, send-bw: both sides send at once (perftest's duplex; one size by -n "
            + "iterations), the summed row printed; a peer that differs in -b is detected and refused, naming -b")
    boolean bidirectional;

    @Option(names = "--report-both", description = "With -b: also each direction's row (Local results, Remote results)")
    boolean reportBoth;

    @Option(names = {"-A", "--atomic_type"}, description = "CMP_AND_SWAP or FETCH_AND_ADD (default: ${DEFAULT-VALUE})")
    String atomicType = "FETCH_AND_ADD";

    @Option(names = {"-g", "--mcg"}, description = "send-bw: send to a multicast group with one UD QP attached to it (perftest's -g): "
            + "the server attaches and receives, the client sends to the group")
    boolean mcg;

    @Option(names = {"-M", "--MGID"}, paramLabel = "MGID", description = "With -g: the group, as perftest's 16 bytes separated by ':' "
            + "(e.g. 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3 for RoCEv2's ::ffff:239.1.2.3) (default: perftest's ff01:0:2:c985::)")
    String mgid;

    @Range(min = 0, max = 255)
    @Option(names = {"-x", "--gid-index"}, description = "GID index of the port (default: the one the framing needs: 0 RoCEv1, 1 RoCEv2)")
    int gidIndex = -1;

    @Option(names = {"-F", "--CPU-freq"}, description = "Accepted for perftest compatibility (no CPU frequency check here)")
    boolean cpuFreq;

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, description = "Link: memory (two devices in this JVM), afpacket:IF or tap:IF (this side only; the peer is another process) (default: ${DEFAULT-VALUE})")
    String link = "memory";

    @Range(min = 2, max = 1 << 20, powerOfTwo = true)
    @Option(names = "--link-slots", description = "Frames the memory link holds per direction, a power of two (default: ${DEFAULT-VALUE}; small keeps the frames in cache)")
    int linkSlots = 64;

    @Range(min = 0, max = 10_000_000)
    @Option(names = "--link-delay-us", description = "One-way delay of the memory link in microseconds, each way (default: ${DEFAULT-VALUE}; "
            + "give --link-slots room for the frames in flight)")
    long linkDelayUs = 0;

    @Range(min = 0, max = 1000)
    @Option(names = "--link-gbit", description = "Serialization rate of the memory link in Gbit/s, 0 = unlimited (default: ${DEFAULT-VALUE})")
    double linkGbit = 0;

    @Option(names = "--framing", description = "Wire format: roce1, roce2, paxi-standard, … (default: ${DEFAULT-VALUE})")
    public String framing = "roce2";

    @Option(names = "--ecn", converter = org.urdma.cli.EcnOption.class, paramLabel = "not-ect|ect0|ect1",
            description = "ECN codepoint of RoCEv2 / PAXI Standard frames, like a NIC's setting (default: ect0)")
    org.urdma.transport.link.Ecn ecn = org.urdma.transport.link.Ecn.ECT0;

    @Option(names = "--paxi-icrc", negatable = true, description = "PAXI Standard/AFH1/AFH2 frames carry the optional ICRC (default: ${DEFAULT-VALUE})")
    public boolean paxiIcrc = true;

    @Option(names = "--driver", description = "inline: the benchmark thread runs the engine inside its CQ polls (over --link memory: both engines); "
            + "thread (or agent): one Agrona agent thread per device (default: ${DEFAULT-VALUE})")
    String driver = "inline";

    @Option(names = "--idle", description = "Agent idle strategy: busy-spin, backoff, or poll (AF_PACKET: sleep in poll(2) on the socket after 1000 empty passes) (default: ${DEFAULT-VALUE})")
    String idle = "backoff";

    @Range(min = 0, max = 1)
    @Option(names = "--loss", description = "Frame loss probability on the data direction (default: ${DEFAULT-VALUE})")
    double loss = 0;

    @Range(min = 0, max = 1)
    @Option(names = "--duplicate", description = "--link memory: probability a frame of the data direction is duplicated (netem duplicate) (default: ${DEFAULT-VALUE})")
    double duplicate = 0;

    @Range(min = 0, max = 1)
    @Option(names = "--reorder", description = "--link memory: probability a frame of the data direction is sent at once past the others, "
            + "which wait 20 us (netem delay 20us reorder) (default: ${DEFAULT-VALUE})")
    double reorder = 0;

    @Option(names = "--counters", arity = "0..1", fallbackValue = "", paramLabel = "DIR",
            description = "Publish the engine counters (rxe hw_counters names, per device and QP) in a memory-mapped file in DIR "
            + "(default: $URDMA_STAT_DIR or /dev/shm/urdma-USER) that 'urdma stat' reads while the run lasts; without it "
            + "the engines count in memory only")
    String counters;

    @Option(names = "--journal", arity = "0..1", fallbackValue = "", paramLabel = "DIR",
            description = "Journal engine events (QP states, retransmissions and why, NAKs, drops) into the Chronicle Queue "
            + "DIR (default: engine-DEV-PID.journal beside the counters files), read with 'urdma journal'; off by default")
    String journal;

    @Option(names = "--reliability", description = "go-back-n, go-back-0, or sack (URDMA TC-SACK: WAN mode with per-packet RETH and timestamps; "
            + "sack:N/MICROS sets the receiver's ACK cadence) (default: ${DEFAULT-VALUE})")
    String reliability = "go-back-n";

    @Option(names = "--wan", description = "URDMA WAN mode with the paper's full set: timestamps, per-packet RETH and out-of-order "
            + "placement, TC-SACK, P-FEC (adaptive) and RRCC; agreed with the peer in urdma's exchange (--exchange urdma)")
    boolean wan;

    @Option(names = "--fec", paramLabel = "M,R|auto", description = "WAN mode with XOR parity: R parity packets per M data packets, or auto (adapts to the loss)")
    String fec;

    @Option(names = "--cc", paramLabel = "none|rrcc[,ref=RATE]|dcqcn", description = "WAN mode rate control; RRCC's reference rate in bit/s (e.g. ref=800M)")
    String cc;

    /** The WAN features these options ask for ({@link WanOffer#NONE}: DC mode). */
    WanOffer wanOffer() {
        return WanOffer.parse(wan, reliability, fec, cc);
    }

    /** The loss recovery of the devices' DC-mode QPs: sack is a WAN-mode policy, which the WAN agreement sets per QP. */
    org.urdma.transport.recovery.LossRecovery.Factory dcReliability() {
        return reliability.trim().toLowerCase(java.util.Locale.ROOT).startsWith("sack")
                ? org.urdma.transport.recovery.LossRecovery.goBackN() : org.urdma.transport.recovery.LossRecovery.named(reliability);
    }

    @Range(min = 0)
    @Option(names = "--rate_limit", description = "Bandwidth tests over a real link (unit: --rate_units; 0 = unlimited): with --exchange urdma the engine paces every packet of each QP, retransmissions too, at this payload rate (a NIC's per-QP rate limit); with perftest's exchange the client posts no faster than this (perftest's software rate limit)")
    double rateLimit;

    @Option(names = "--rate_units", description = "Unit of --rate_limit: M (MB/s), g (Gbit/s) or p (messages/s) (default: ${DEFAULT-VALUE})")
    String rateUnits = "g";

    @Option(names = "--report_gbits", description = "Report bandwidth in Gbit/s instead of MB/s")
    boolean gbits;

    @Option(names = "--no-copy-baseline", description = "write-bw: skip the MemorySegment.copy baseline")
    boolean noCopyBaseline;

    @Range(min = 0, max = 100_000_000)
    @Option(names = "--warmup-iters", description = "Latency tests with perftest's exchange: run this many iterations before "
            + "the -n measured ones, unrecorded (the JIT compiles the data path during them; perftest has no warm-up). Give "
            + "both sides the same count: a stock perftest peer knows nothing of it (default: ${DEFAULT-VALUE})")
    int warmupIters;

    /**
     * perftest's -D margin: the warm-up and cool-down of a duration run (duration / 4, in whole seconds), whose
     * completions are not sampled, so the report is the steady state, not a run's start-up and drain.
     */
    public static long marginNanos(long durationNanos) {
        return durationNanos / 4 / 1_000_000_000L * 1_000_000_000L;
    }
}
