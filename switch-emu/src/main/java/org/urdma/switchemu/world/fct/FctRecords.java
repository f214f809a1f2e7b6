package org.urdma.switchemu.world.fct;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.topo.Topology;
import org.urdma.transport.link.Ecn;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.verbs.Gid;

/**
 * Flow completion times and their ideal: a flow's FCT is its completion minus its start; its ideal is what the same
 * WRITE takes alone on its path, store-and-forward, worked out packet by packet: the sender puts its packets on the
 * wire back to back, each switch forwards a packet once it has all of it (plus its pipeline delay) and the link is
 * free, and the ACK of the last packet comes back. On an idle path that is the base RTT of the path plus the flow's
 * bytes on the wire at the bottleneck rate, counted exactly as the simulated world sends them (RoCEv2 headers, RETH on
 * the first packet, ICRC, preamble, FCS and gap) including where a short last packet waits behind a full one; a flow
 * alone on an idle path has slowdown 1.
 */
public final class FctRecords {
    private static final int WIRE_OVERHEAD = 24;
    private static final int MIN_FRAME = 60;

    /**
     * One path's numbers: link rates and propagation delays in order, the pipeline delay of the switch after each link
     * but the last, and the time the ACK takes back (propagation, pipelines, its serialization).
     */
    private record Path(long[] rates, long[] delays, long[] pipelines, double ackNs) {
    }

    private final Topology topology;
    private final List<String> hosts;
    private final HostNumbers numbers;
    private final int mtu;
    private final LinkFraming framing;
    private final Map<Long, Path> paths = new HashMap<>();
    private final Map<String, Long> pipeline = new HashMap<>();

    /** Flows between {@code hosts} (by index) of {@code t}, sent with path MTU {@code mtu} bytes. */
    public FctRecords(Topology t, List<String> hosts, int mtu) {
        this.topology = t;
        this.hosts = hosts;
        this.numbers = new HostNumbers(hosts);
        this.mtu = mtu;
        byte[] mac = {2, 0, 0, 0, 0, 1};
        this.framing = new LinkFraming(FramingKind.ROCE2, true, mac, Gid.fromMac(mac).toBytes(), -1, 0, false, Ecn.ECT0);
        for (String s : t.switches().keySet()) {
            SwitchConfig c = t.switchConfig(s);
            pipeline.put(s, c.pipelineDelayNs());
        }
    }

    public HostNumbers numbers() {
        return numbers;
    }

    private Path path(int src, int dst) {
        return paths.computeIfAbsent((long) src << 32 | dst, k -> {
            List<Topology.Link> links = topology.routes().path(hosts.get(src), hosts.get(dst));
            if (links.isEmpty()) throw new IllegalArgumentException("no path from " + hosts.get(src) + " to " + hosts.get(dst));
            int n = links.size();
            long[] rates = new long[n];
            long[] delays = new long[n];
            long[] pipelines = new long[n];
            int ack = framing.frameLength(Opcode.RC_ACKNOWLEDGE, 0);
            double back = 0;
            String at = hosts.get(src);
            for (int i = 0; i < n; i++) {
                Topology.Link l = links.get(i);
                rates[i] = l.rateBps();
                delays[i] = l.delayNs();
                at = l.peer(at);
                pipelines[i] = i < n - 1 ? pipeline.getOrDefault(at, 0L) : 0;
                back += delays[i] + pipelines[i] + serNs(ack, rates[i]);
            }
            return new Path(rates, delays, pipelines, back);
        });
    }

    private static double serNs(int frame, long rate) {
        return (Math.max(frame, MIN_FRAME) + WIRE_OVERHEAD) * 8e9 / rate;
    }

    /** Bytes a WRITE of {@code size} takes on the wire: every packet's frame, preamble, FCS and gap. */
    public long wireBytes(long size) {
        long packets = Math.max(1, (size + mtu - 1) / mtu);
        if (packets == 1) return Math.max(framing.frameLength(Opcode.RC_RDMA_WRITE_ONLY, (int) size), MIN_FRAME) + WIRE_OVERHEAD;
        long first = Math.max(framing.frameLength(Opcode.RC_RDMA_WRITE_FIRST, mtu), MIN_FRAME) + WIRE_OVERHEAD;
        long middle = Math.max(framing.frameLength(Opcode.RC_RDMA_WRITE_MIDDLE, mtu), MIN_FRAME) + WIRE_OVERHEAD;
        int lastPayload = (int) (size - (packets - 1) * mtu);
        long last = Math.max(framing.frameLength(Opcode.RC_RDMA_WRITE_LAST, lastPayload), MIN_FRAME) + WIRE_OVERHEAD;
        return first + (packets - 2) * middle + last;
    }

    /** The ideal FCT of a flow of {@code size} bytes from host {@code src} to {@code dst}, ns. */
    public long idealNs(int src, int dst, long size) {
        Path p = path(src, dst);
        int hops = p.rates.length;
        long packets = Math.max(1, (size + mtu - 1) / mtu);
        int only = framing.frameLength(Opcode.RC_RDMA_WRITE_ONLY, (int) Math.min(size, mtu));
        int first = framing.frameLength(Opcode.RC_RDMA_WRITE_FIRST, mtu);
        int middle = framing.frameLength(Opcode.RC_RDMA_WRITE_MIDDLE, mtu);
        int last = framing.frameLength(Opcode.RC_RDMA_WRITE_LAST, (int) (size - (packets - 1) * mtu));
        // departure (end of transmission) of the previous packet from each hop
        double[] done = new double[hops];
        for (long j = 0; j < packets; j++) {
            int frame = packets == 1 ? only : j == 0 ? first : j == packets - 1 ? last : middle;
            double at = 0;
            for (int k = 0; k < hops; k++) {
                double end = Math.max(at, done[k]) + serNs(frame, p.rates[k]);
                done[k] = end;
                at = end + p.delays[k] + p.pipelines[k];
            }
        }
        return Math.round(done[hops - 1] + p.delays[hops - 1] + p.ackNs);
    }

    /**
     * One line of HPCC's fct.txt: {@code sip dip sport dport size start_ns fct_ns ideal_ns} (addresses as HPCC's
     * 11.X.Y.1 of the hosts' numbers, in hex; sport the RoCEv2 UDP source port the flow's QP used).
     */
    public String fctLine(int src, int dst, int sport, int dport, long size, long startNs, long finishNs) {
        return String.format(Locale.ROOT, "%08x %08x %d %d %d %d %d %d%n", HostNumbers.hpccIp(numbers.number(src)),
                HostNumbers.hpccIp(numbers.number(dst)), sport, dport, size, startNs, finishNs - startNs, idealNs(src, dst, size));
    }

    public static final String CSV_HEADER = "flow,src,dst,sport,dport,size,start_ns,finish_ns,fct_ns,ideal_ns,slowdown\n";

    /** The same as a CSV row (host names, and the slowdown). */
    public String csvLine(int flow, int src, int dst, int sport, int dport, long size, long startNs, long finishNs) {
        long ideal = idealNs(src, dst, size);
        return String.format(Locale.ROOT, "%d,%s,%s,%d,%d,%d,%d,%d,%d,%d,%.6f%n", flow, hosts.get(src), hosts.get(dst), sport, dport,
                size, startNs, finishNs, finishNs - startNs, ideal, (finishNs - startNs) / (double) ideal);
    }
}
