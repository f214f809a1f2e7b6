package org.urdma.tools.perf;

import picocli.CommandLine.Option;
import org.urdma.cli.Range;
import picocli.CommandLine.Parameters;

/**
 * What {@code urdma perf} needs on a real link (--link afpacket:IF or tap:IF): the port's own address, the
 * out-of-band TCP port, the peer (none = server), capture and RX ring choice. Like perftest, both sides are
 * started with the same test flags.
 */
public final class NetOptions {
    @Parameters(arity = "0..1", paramLabel = "PEER", description = "Server's address for the out-of-band exchange; none = act as the server")
    String peer;

    @Range(min = 1, max = 65535)
    @Option(names = {"-p", "--port"}, description = "TCP port of the out-of-band exchange (default: ${DEFAULT-VALUE})")
    int port = 18515;

    @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (RoCEv2); one the kernel owns is refused (the kernel would answer RoCEv2 with ICMP port unreachable)")
    String ip;

    @Option(names = "--mac", description = "This port's MAC (default: the interface's for afpacket, a fixed local one for tap)")
    String mac;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Capture every frame this side sends and receives (libpcap; "
            + "on --link memory every frame either device sends)")
    String pcap;

    @Option(names = "--pcapng", paramLabel = "FILE", description = "As --pcap, in pcapng (Wireshark's default; nanosecond timestamps)")
    String pcapng;

    @Option(names = "--rx-ring", description = "AF_PACKET RX ring: v2 (per-frame, latency) or v3 (per-block, throughput); default: v2")
    String rxRing;

    @Range(min = 0, max = 4094)
    @Option(names = "--vlan", description = "802.1Q VLAN id for every frame (0 = priority tag only); default untagged")
    int vlan = -1;

    @Range(min = 0, max = 7)
    @Option(names = "--pcp", description = "802.1Q priority with --vlan (default: ${DEFAULT-VALUE})")
    int pcp = 0;

    @Option(names = "--link-rate", paramLabel = "RATE", description = "Rate PAUSE/PFC quanta are timed at (512 bit times each), "
            + "e.g. 10G, 25G, 100M; default: the interface's speed, or 10G where it reports none (veth, TAP)")
    String linkRate;

    @Option(names = "--flow-control", description = "pfc: obey received PFC/PAUSE frames; cbfc: PAXI credit-based flow control "
            + "per VC (PAXI framings; the peer must run cbfc too) (default: ${DEFAULT-VALUE})")
    String flowControl = "pfc";

    @Range(min = 0, max = 32767)
    @Option(names = "--cbfc-credits", description = "CBFC: frames per VC the peer's RX buffer holds for us; 0 = an eighth of "
            + "this side's RX ring (default: ${DEFAULT-VALUE})")
    int cbfcCredits = 0;

    /** --link-rate in bit/s: a number with an optional k/M/G/T suffix; 0 when not given. */
    long linkRateBps() {
        if (linkRate == null) return 0;
        String t = linkRate.trim();
        long unit = 1;
        char last = t.isEmpty() ? ' ' : Character.toUpperCase(t.charAt(t.length() - 1));
        if (last == 'K' || last == 'M' || last == 'G' || last == 'T') {
            unit = last == 'K' ? 1_000L : last == 'M' ? 1_000_000L : last == 'G' ? 1_000_000_000L : 1_000_000_000_000L;
            t = t.substring(0, t.length() - 1);
        }
        try {
            double v = Double.parseDouble(t);
            if (v > 0 && v * unit <= 1.6e12) return (long) (v * unit);
        } catch (NumberFormatException e) {
            // fall through to the one-line error
        }
        throw new IllegalArgumentException("--link-rate: a rate such as 10G, 25G or 100M, was '" + linkRate + "'");
    }

    @Range(min = 1, max = 3600)
    @Option(names = "--cm-timeout", description = "Seconds to wait for the peer at each out-of-band step (default: ${DEFAULT-VALUE}); "
            + "at a barrier, for the peer's run, up to 1 h (or this if longer); a peer gone without closing TCP (link cut, "
            + "host down) ends the run 10 s after its last answer (TCP keepalive: idle 5 s, 5 probes 1 s apart)")
    int cmTimeoutSeconds = 30;

    @Option(names = "--exchange", description = "Out-of-band exchange: perftest (perftest 6.06's, so the stock ib_*_bw/lat tools are peers) or urdma (urdma's own, with MAC and features) (default: ${DEFAULT-VALUE})")
    String exchange = "perftest";

    @Option(names = {"-R", "--rdma_cm"}, description = "Connect through rdma_cm (the IB CM on QP1, port -p of RDMA_PS_TCP) as "
            + "perftest's -R: first the exchange's own RC QP (its steps become SENDs), then the test's QPs (--exchange perftest only)")
    boolean rdmaCm;

    @Range(min = 0, max = 31, why = "a 5-bit code")
    @Option(names = "--timeout", description = "Local ACK timeout code: 4.096 us x 2^code (default: ${DEFAULT-VALUE})")
    int ackTimeout = 14;

    @Range(min = 0, max = 7)
    @Option(names = "--retry", description = "Retries before RETRY_EXC_ERR, counted as the IB specification does: 7 is seven retries (rxe "
            + "retries forever on 7; only rnr_retry 7 is unlimited) (default: ${DEFAULT-VALUE})")
    int retryCnt = 7;

    /** Opens the capture file of --pcap or --pcapng; null when neither is given. */
    org.urdma.transport.pcap.PcapWriter openCapture() {
        return org.urdma.cli.CaptureFiles.open(pcap, pcapng);
    }

    /** Whether the run uses perftest 6.06's exchange (else urdma's own). */
    boolean perftestExchange() {
        if (rdmaCm && !exchange.equalsIgnoreCase("perftest")) {
            throw new IllegalArgumentException("-R: connects the way perftest's -R does, so it needs --exchange perftest, was '" + exchange + "'");
        }
        return switch (exchange.toLowerCase(java.util.Locale.ROOT)) {
            case "perftest" -> true;
            case "urdma" -> false;
            default -> throw new IllegalArgumentException("--exchange: perftest or urdma, was '" + exchange + "'");
        };
    }

    /** Whether the options ask for a real link rather than the in-memory one. */
    static boolean isNetwork(PerfOptions o) {
        return o.link.startsWith("afpacket:") || o.link.startsWith("tap:");
    }
}
