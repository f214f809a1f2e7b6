package org.urdma.transport.fuzz;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.DeviceStats;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.DecodeCounters;
import org.urdma.transport.wire.DecodeStatus;

/**
 * A {@link MemoryLink} end as its device sees it, receiving one frame at a time so each frame's fate is known: which
 * framing reason, which device drop counter, or processed. Frames are matched with the tags their sender pushed (in
 * the order they were sent: the link keeps order when it has no impairment). Exactly one outcome per frame is the
 * first oracle: a frame that moves two counters, or a decode counter that disagrees with the link's, fails.
 */
final class AccountingLink implements Link {
    /** Told about each frame; {@code p} is null when the framing dropped it. */
    interface Judge {
        void before(AccountingLink at, long tag, RxPacket p);

        void after(AccountingLink at, long tag, Outcome outcome, RxPacket p);
    }

    private final MemoryLink link;
    private final DecodeCounters decode;
    private final long[] seen = new long[DecodeStatus.count()];
    private final long[] tags = new long[4096];
    private long tagHead, tagTail;
    private final Judge judge;
    private SoftDevice device;
    private final long[] outcomes = new long[Outcome.values().length];
    private long tag;
    private boolean delivered;
    private final PacketSink perFrame = this::deliver;
    private PacketSink sink;

    AccountingLink(MemoryLink link, Judge judge) {
        this.link = link;
        this.decode = link.framing().decoder().counters();
        this.judge = judge;
    }

    void bind(SoftDevice d) {
        this.device = d;
    }

    SoftDevice device() {
        return device;
    }

    MemoryLink link() {
        return link;
    }

    /** The sending side of the peer link pushes a tag for each frame it puts on this link's receive ring. */
    void pushTag(long t) {
        if (tagHead - tagTail == tags.length) throw new IllegalStateException("tags: more frames in flight than " + tags.length);
        tags[(int) (tagHead++ & (tags.length - 1))] = t;
    }

    long outcomes(Outcome o) {
        return outcomes[o.ordinal()];
    }

    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        return link.claim(opcode, payloadLength, route, now);
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
        link.commit(packet, route, now);
    }

    @Override
    public int receive(long now, PacketSink s, int limit) {
        sink = s;
        int n = 0;
        while (n < limit) {
            if (tagHead == tagTail) {
                if (link.nextEventTime() <= now) throw new IllegalStateException("a frame arrived that nobody sent");
                break;
            }
            tag = tags[(int) (tagTail & (tags.length - 1))];
            delivered = false;
            if (link.receive(now, perFrame, 1) == 0) break;
            tagTail++;
            n++;
            if (!delivered) {
                Outcome o = decodeReason();
                outcomes[o.ordinal()]++;
                judge.after(this, tag, o, null);
            }
            if (!s.takesMore()) break;
        }
        return n;
    }

    private void deliver(RxPacket p, long now) {
        delivered = true;
        DeviceStats d = device.stats();
        long pkey = d.get(Counter.DROP_BAD_PKEY), unknown = d.get(Counter.DROP_UNKNOWN_QP), dropped = d.qpDrops();
        judge.before(this, tag, p);
        sink.onPacket(p, now);
        long dp = d.get(Counter.DROP_BAD_PKEY) - pkey, du = d.get(Counter.DROP_UNKNOWN_QP) - unknown, dd = d.qpDrops() - dropped;
        if (dp + du + dd > 1 || dp < 0 || du < 0 || dd < 0) {
            throw new OracleFailure("one frame moved the device's drop counters by bad P_Key " + dp + ", unknown QP " + du
                + ", dropped " + dd + " (one at most)");
        }
        Outcome o = dp == 1 ? Outcome.BAD_PKEY : du == 1 ? Outcome.UNKNOWN_QP : dd == 1 ? Outcome.RX_DROPPED : Outcome.PROCESSED;
        outcomes[o.ordinal()]++;
        judge.after(this, tag, o, p);
    }

    /** The one reason the framing counted for the frame it just dropped. */
    private Outcome decodeReason() {
        Outcome found = null;
        for (DecodeStatus s : DecodeStatus.values()) {
            if (s == DecodeStatus.OK) continue;
            long v = decode.get(s);
            long d = v - seen[s.ordinal()];
            seen[s.ordinal()] = v;
            if (d == 0) continue;
            if (d != 1 || found != null) throw new OracleFailure("one dropped frame counted " + d + " times under " + s
                + (found != null ? " and under " + found : ""));
            found = Outcome.of(s);
        }
        if (found == null) throw new OracleFailure("a frame was consumed without reaching the device nor being counted by the framing");
        return found;
    }

    @Override
    public int flush(long now) {
        return link.flush(now);
    }

    @Override
    public long nextEventTime() {
        return link.nextEventTime();
    }

    @Override
    public int maxPayload() {
        return link.maxPayload();
    }
}
