package org.urdma.scenario.wan;

import java.util.List;
import java.util.Locale;

/**
 * One row of the WAN scenario: a named runner. Kernel TCP rows name the congestion control the sender's namespace
 * uses; urdma rows are the {@code urdma perf} test and arguments both sides run, where {@code {rate}} stands for the
 * bottleneck rate in Gbit/s.
 */
public record WanProtocol(String key, String label, Kind kind, String congestionControl, List<String> perfArgs) {
    public enum Kind { TCP, URDMA }

    /** Kernel TCP, one stream, with this congestion control (net.ipv4.tcp_congestion_control in the sender's namespace). */
    public static WanProtocol tcp(String key, String label, String cc) {
        return new WanProtocol(key, label, Kind.TCP, cc, List.of());
    }

    /** {@code urdma perf ARGS} between the two hosts (server in the receiver's namespace). */
    public static WanProtocol urdma(String key, String label, String... perfArgs) {
        return new WanProtocol(key, label, Kind.URDMA, null, List.of(perfArgs));
    }

    /**
     * Every row, in table order. RC go-back-N is paced at the bottleneck rate by --rate_limit, which the engine applies to
     * every packet, retransmissions too (it has no congestion control; unpaced it would overrun the bottleneck queue and
     * measure that, not the path's loss). The WAN mode's row runs the paper's set (--wan: SACK, TS, per-packet RETH, FEC
     * auto, RRCC) in the same lossless class, with the bottleneck's payload rate as RRCC's reference rate (the paper's
     * planned network: start at it, never below it). Without one, RRCC on these AF_PACKET paths paced itself far below
     * the bottleneck and met ACK timeouts (0.25 Gbit/s on a bare veth with VLAN/PCP; stalled through the switch).
     */
    public static final List<WanProtocol> ALL = List.of(
        tcp("tcp-cubic", "TCP CUBIC", "cubic"),
        tcp("tcp-bbr", "TCP BBR", "bbr"),
        urdma("urdma-gbn", "urdma RC go-back-N", "write-bw", "--reliability", "go-back-n", "--vlan", "0", "--pcp", "3",
            "--flow-control", "pfc", "--rate_limit", "{rate}", "--rate_units", "g"),
        urdma("urdma-wan", "urdma WAN", "write-bw", "--wan", "--cc", "rrcc,ref={rate}g", "--vlan", "0", "--pcp", "3",
            "--flow-control", "pfc"),
        urdma("urdma-sack", "urdma WAN without FEC", "write-bw", "--reliability", "sack", "--cc", "rrcc,ref={rate}g",
            "--vlan", "0", "--pcp", "3", "--flow-control", "pfc"));

    /** The rows a scenario runs unless --protocols names others (urdma-sack shows what FEC adds; it is not the paper's). */
    public static final List<WanProtocol> DEFAULT = ALL.subList(0, 4);

    /** The rows named in {@code keys} (comma separated), in table order; an unknown name is refused naming the option. */
    public static List<WanProtocol> select(String keys) {
        List<String> wanted = List.of(keys.toLowerCase(Locale.ROOT).split(","));
        for (String w : wanted) {
            if (ALL.stream().noneMatch(p -> p.key.equals(w.strip()))) {
                throw new IllegalArgumentException("--protocols: unknown protocol '" + w.strip() + "' (known: "
                    + String.join(", ", ALL.stream().map(WanProtocol::key).toList()) + ")");
            }
        }
        return ALL.stream().filter(p -> wanted.stream().anyMatch(w -> w.strip().equals(p.key))).toList();
    }

    /** The perf arguments with {@code {rate}} replaced by {@link #payloadRateGbps(double) the bottleneck's payload rate}. */
    public List<String> perfArgs(double rateGbps) {
        return perfArgs.stream().map(a -> a.replace("{rate}", String.format(Locale.ROOT, "%.4f", payloadRateGbps(rateGbps)))).toList();
    }

    /**
     * The payload rate that fills a bottleneck of {@code rateGbps} with 4 KiB RoCEv2 packets: the switch serializes each
     * packet's headers (Ethernet + 802.1Q + IPv4 + UDP + BTH + ICRC = 62 B, a RETH on one packet in 16) and wire overhead
     * (preamble, IFG, FCS: 24 B) too. --rate_limit is payload, so pacing at R itself overran R by 2 % and lived on PFC.
     */
    static double payloadRateGbps(double rateGbps) {
        return rateGbps * 4096 / (4096 + 62 + 1 + 24);
    }
}
