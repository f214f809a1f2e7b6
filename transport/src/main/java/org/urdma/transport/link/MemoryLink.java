package org.urdma.transport.link;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.impair.ReleaseHeap;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;

/**
 * An in-JVM link: one end of a pair joining two devices. Packets are built in place into real frames with a
 * {@link LinkFraming}, pass through the netem {@link Impairment} of their direction (applied on the sending side
 * with its own seeded generator; delayed copies wait in a {@link ReleaseHeap} and leave in time order), then the
 * link's serialization and one-way latency, and are decoded on the other end. Each direction is a
 * single-producer single-consumer {@link FrameRing}, so the two devices may run on two threads.
 */
public final class MemoryLink implements Link {
    /** Sees frames as a link sends them; the frame is valid only during the call. */
    @FunctionalInterface
    public interface FrameTap {
        void onFrame(DirectBuffer frame, int offset, int length, long now);
    }

    /** Link shape: ring slots per direction, one-way latency, optional serialization rate, path MTU ceiling. */
    public record Config(int slots, long latencyNanos, double gbps, int maxPayload) {
        public Config {
            if (Integer.bitCount(slots) != 1) throw new IllegalArgumentException("slots: must be a power of two, was " + slots);
            if (latencyNanos < 0) throw new IllegalArgumentException("latencyNanos: must be >= 0");
            if (gbps < 0) throw new IllegalArgumentException("gbps: must be >= 0 (0 = unlimited)");
            if (maxPayload < 256) throw new IllegalArgumentException("maxPayload: must be >= 256");
        }

        public static Config defaults() {
            return new Config(1024, 1_000, 0, 4096);
        }

        public Config withLatency(long ns) {
            return new Config(slots, ns, gbps, maxPayload);
        }

        public Config withSlots(int n) {
            return new Config(n, latencyNanos, gbps, maxPayload);
        }

        public Config withGbps(double g) {
            return new Config(slots, latencyNanos, g, maxPayload);
        }
    }

    /**
     * A frame starts up to this many bytes into its slot so that its payload starts on a cache line: the two payload
     * copies (MR to slot, slot to MR) then run as aligned 8-byte copies; at a 2-byte aligned payload (70 bytes of
     * RoCEv2 headers) Unsafe.copyMemory moves 2-byte elements (jshort_disjoint_arraycopy), a third of write-bw's time.
     */
    static final int PAYLOAD_ALIGN = 64;

    private final LinkFraming framing;
    private final FrameRing tx;
    private final FrameRing rx;
    private final Config config;
    /** Where a packet this link cannot carry is written and forgotten. */
    private final UnsafeBuffer scratch;
    /** The claimed slot, where the engine builds its packet (unchecked writes: see SlotBuffer). */
    private final SlotBuffer txSlot = new SlotBuffer();
    /** Most bytes one direction holds back (16 Ki frames of 4 KiB: a delay of ~70 ms at 10 Gbit/s); beyond: lost. */
    private static final int DELAY_LINE_FRAMES = 16_384;
    /** The delay line's cell: a small frame (an ACK) takes one, a 4 KiB one a run of adjacent cells. */
    private static final int DELAY_CELL = 256;
    private int claimed = -1;
    /** This direction's impairment, or null when it does nothing. */
    private Impairment impairment;
    private boolean corrupts;
    private FrameTap tap;
    private MemoryLink peer;
    /** A frame came from outside (inject): it may be damaged, so the ICRC is always checked from then on. */
    private boolean foreignFrames;
    private long serializerFreeAt;
    /** Copies the impairment releases later than offered; made at the first such copy. */
    private ReleaseHeap delayed;

    // counters
    private long sentFrames, sentBytes, receivedFrames, lostFrames, duplicatedFrames, reorderedFrames, corruptedFrames,
            malformedFrames, backPressured;

    private MemoryLink(LinkFraming framing, FrameRing tx, FrameRing rx, Config config, ImpairmentConfig impairment) {
        this.framing = framing;
        this.tx = tx;
        this.rx = rx;
        this.config = config;
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(tx.slotSize()));
        impairment(impairment);
    }

    /**
     * Two joined ends: {@code [0]} sends to {@code [1]} with {@code aToB} impairment and vice versa. Each end
     * has its own framing (it keeps per-thread state; each end is used by its device's engine thread).
     */
    public static MemoryLink[] pair(Config config, LinkFraming a, LinkFraming b, ImpairmentConfig aToB,
                                    ImpairmentConfig bToA) {
        int slotSize = ((Math.max(a.maxFrameLength(config.maxPayload()), b.maxFrameLength(config.maxPayload())) + 63) & ~63)
                + PAYLOAD_ALIGN;
        FrameRing ab = new FrameRing(config.slots(), slotSize);
        FrameRing ba = new FrameRing(config.slots(), slotSize);
        MemoryLink x = new MemoryLink(a, ab, ba, config, aToB);
        MemoryLink y = new MemoryLink(b, ba, ab, config, bToA);
        x.peer = y;
        y.peer = x;
        x.updateOffload();
        return new MemoryLink[] {x, y};
    }

    /**
     * The ICRC is offloaded, as a NIC hands it to hardware, while neither direction can corrupt a frame, nobody captures
     * and no foreign frame was injected: the sender writes a zero ICRC and the receiver does not check it. Each frame
     * carries whether it was sent so, so turning it off with frames in flight loses none of them.
     */
    private void updateOffload() {
        if (peer == null) return; // still being paired
        boolean on = !corrupts && !peer.corrupts && tap == null && peer.tap == null
                && !foreignFrames && !peer.foreignFrames;
        framing.txIcrcOffload(on);
        peer.framing.txIcrcOffload(on);
    }

    /** Whether this pair leaves the ICRC out (see {@link #updateOffload}). */
    public boolean icrcOffloaded() {
        return framing.icrcOffloaded();
    }

    public LinkFraming framing() {
        return framing;
    }

    /**
     * Changes this end's sending impairment, drawing afresh from the config's seed (control path; not while another
     * thread sends); null: none. Frames already held keep their release times.
     */
    public void impairment(ImpairmentConfig c) {
        boolean none = c == null || c.isNone();
        this.impairment = none ? null : new Impairment(c, new SplittableRandom(c.seed()));
        this.corrupts = !none && c.corrupts();
        updateOffload();
    }

    @Override
    public int maxPayload() {
        return config.maxPayload();
    }

    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        if (!framing.canCarry(opcode) || framing.frameLength(opcode, payloadLength) > tx.slotSize() - PAYLOAD_ALIGN) {
            claimed = -1;
            return framing.begin(scratch, 0).discard(); // cannot be framed: dropped and counted, like a NIC would
        }
        release(now);
        int lead = payloadLength == 0 ? 0
                : (int) (-(tx.buffer.addressOffset() + framing.payloadOffset(opcode)) & (PAYLOAD_ALIGN - 1));
        int off = tx.claim(lead);
        if (off < 0) {
            backPressured++;
            return null;
        }
        claimed = off + lead;
        txSlot.wrap(tx.buffer.addressOffset() + claimed, tx.slotSize() - lead);
        return framing.begin(txSlot, 0);
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
        if (packet.discarded()) {
            malformedFrames++;
            return;
        }
        int len = framing.end(packet, route);
        publish(claimed, len, now, framing.icrcOffloaded());
    }

    /**
     * Sends a frame built elsewhere (a hostile or foreign host on the segment, a fuzzer) through this end's impairment;
     * false when the ring is full.
     */
    public boolean inject(DirectBuffer frame, int offset, int length, long now) {
        int room = tx.slotSize() - PAYLOAD_ALIGN;
        if (length > room) throw new IllegalArgumentException("length: " + length + " exceeds the slot size " + room);
        if (!foreignFrames) {
            foreignFrames = true;
            updateOffload();
        }
        release(now);
        int off = tx.claim();
        if (off < 0) return false;
        tx.buffer.putBytes(off, frame, offset, length);
        publish(off, length, now, false);
        return true;
    }

    /** Shows every frame this end sends, before impairment (a capture, or a test watching the wire); null: none. */
    public void tap(FrameTap t) {
        this.tap = t;
        updateOffload();
    }

    private void publish(int off, int len, long now, boolean offloaded) {
        if (tap != null) tap.onFrame(tx.buffer, off, len, now);
        sentFrames++;
        sentBytes += len;
        Impairment imp = impairment;
        if (imp == null) {
            tx.publish(len, deliveryTime(now, len), offloaded);
            return;
        }
        long lost = imp.lost(), duplicated = imp.duplicated(), reordered = imp.reordered();
        Impairment.Result r = imp.offer(now, len);
        lostFrames += imp.lost() - lost;
        duplicatedFrames += imp.duplicated() - duplicated;
        reorderedFrames += imp.reordered() - reordered;
        // the last copy due now leaves from the slot it was built in; the others wait in the delay line
        int inPlace = -1;
        for (int i = 0; i < r.copies; i++) {
            if (r.releaseAt[i] <= now) inPlace = i;
        }
        for (int i = 0; i < r.copies; i++) {
            int flip = bitFlipAt(r.corruptByte[i], len);
            if (flip >= 0) corruptedFrames++;
            if (i == inPlace) continue;
            if (delayed == null) {
                delayed = new ReleaseHeap(64L * tx.slotSize(), (long) DELAY_LINE_FRAMES * tx.slotSize(), DELAY_CELL);
            }
            if (!delayed.add(tx.buffer, off, len, r.releaseAt[i], flip, r.corruptMask[i], offloaded)) lostFrames++;
        }
        if (inPlace >= 0) {
            int flip = bitFlipAt(r.corruptByte[inPlace], len);
            if (flip >= 0) tx.buffer.putByte(off + flip, (byte) (tx.buffer.getByte(off + flip) ^ r.corruptMask[inPlace]));
            tx.publish(len, deliveryTime(now, len), offloaded);
            release(now); // a second copy due now follows the first
        }
    }

    /**
     * The impairment's corrupted byte moved past the 14-byte Ethernet header, or -1: a frame damaged there fails the
     * receiving NIC's FCS and is simply lost; corruption after it (e.g. in a switch buffer) is what the ICRC exists
     * to catch.
     */
    private static int bitFlipAt(int corruptByte, int len) {
        return corruptByte < 0 ? -1 : 14 + (int) ((long) corruptByte * (len - 14) / len);
    }

    private long deliveryTime(long now, int len) {
        if (config.gbps() > 0) {
            long start = Math.max(now, serializerFreeAt);
            serializerFreeAt = start + (long) (len * 8 / config.gbps());
            return serializerFreeAt + config.latencyNanos();
        }
        return now + config.latencyNanos();
    }

    /** Moves held copies due by {@code now} into the ring, in time order, timed from their release; returns how many. */
    private int release(long now) {
        ReleaseHeap d = delayed;
        if (d == null) return 0;
        int n = 0;
        while (d.nextRelease() <= now) {
            int off = tx.claim();
            if (off < 0) break;
            long at = d.nextRelease();
            boolean offloaded = d.peekFlag();
            int len = d.pollInto(tx.buffer, off);
            tx.publish(len, deliveryTime(at, len), offloaded);
            n++;
        }
        return n;
    }

    @Override
    public int flush(long now) {
        return release(now);
    }

    @Override
    public long nextEventTime() {
        long t = Long.MAX_VALUE;
        int i = rx.peek();
        if (i >= 0) t = rx.deliverAtOf(i);
        if (delayed != null) t = Math.min(t, delayed.nextRelease());
        return t;
    }

    @Override
    public int receive(long now, PacketSink sink, int limit) {
        int n = 0;
        while (n < limit) {
            int i = rx.peek();
            if (i < 0 || rx.deliverAtOf(i) > now) break;
            n++;
            RxPacket p = framing.decode(rx.buffer, rx.offsetOf(i), rx.lengthOf(i), rx.icrcOffloadedOf(i));
            if (p != null) {
                receivedFrames++;
                sink.onPacket(p, now);
            } else {
                malformedFrames++;
                sink.onMalformed(framing.lastError(), now);
            }
            rx.release();
            if (!sink.takesMore()) break;
        }
        return n;
    }

    public long sentFrames() { return sentFrames; }
    public long sentBytes() { return sentBytes; }
    public long receivedFrames() { return receivedFrames; }
    public long lostFrames() { return lostFrames; }
    public long duplicatedFrames() { return duplicatedFrames; }
    public long reorderedFrames() { return reorderedFrames; }
    public long corruptedFrames() { return corruptedFrames; }
    /** Frames this end could not decode (or encode): counted and dropped. */
    public long malformedFrames() { return malformedFrames; }
    public long backPressured() { return backPressured; }
}
