package org.urdma.transport.link;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;

/**
 * An in-JVM link: one end of a pair joining two devices. Packets are built in place into real frames with a
 * {@link LinkFraming}, pass through a one-way latency and an {@link Impairment} (applied on the sending
 * side with its own seeded generator), and are decoded on the other end. Each direction is a
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
    private int claimed = -1;
    private Impairment impairment;
    private FrameTap tap;
    private MemoryLink peer;
    /** A frame came from outside (inject): it may be damaged, so the ICRC is always checked from then on. */
    private boolean foreignFrames;
    private SplittableRandom random;
    private long frameCount;
    private long serializerFreeAt;
    // one held-back frame for reordering
    private final UnsafeBuffer held;
    private int heldLength = -1;
    private boolean heldOffloaded;
    private int heldGapLeft;
    private long heldSince;

    // counters
    private long sentFrames, sentBytes, receivedFrames, lostFrames, duplicatedFrames, reorderedFrames, corruptedFrames,
            malformedFrames, backPressured;

    private MemoryLink(LinkFraming framing, FrameRing tx, FrameRing rx, Config config, Impairment impairment) {
        this.framing = framing;
        this.tx = tx;
        this.rx = rx;
        this.config = config;
        this.held = new UnsafeBuffer(ByteBuffer.allocateDirect(tx.slotSize()));
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(tx.slotSize()));
        impairment(impairment);
    }

    /**
     * Two joined ends: {@code [0]} sends to {@code [1]} with {@code aToB} impairment and vice versa. Each end
     * has its own framing (it keeps per-thread state; each end is used by its device's engine thread).
     */
    public static MemoryLink[] pair(Config config, LinkFraming a, LinkFraming b, Impairment aToB, Impairment bToA) {
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
        boolean on = impairment.corrupt() == 0 && peer.impairment.corrupt() == 0 && tap == null && peer.tap == null
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

    /** Changes this end's sending impairment (control path; not while another thread sends). */
    public void impairment(Impairment imp) {
        this.impairment = imp == null ? Impairment.NONE : imp;
        this.random = new SplittableRandom(this.impairment.seed());
        this.frameCount = 0;
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
        int lead = payloadLength == 0 ? 0
                : (int) (-(tx.buffer.addressOffset() + framing.payloadOffset(opcode)) & (PAYLOAD_ALIGN - 1));
        int off = tx.claim(lead);
        if (off < 0 || (heldLength >= 0 && tx.size() + 2 > tx.capacity())) {
            backPressured++;
            return null;
        }
        claimed = off + lead;
        return framing.begin(tx.buffer, claimed);
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
        long deliverAt = deliveryTime(now, len);
        Impairment imp = impairment;
        if (imp.isNone()) {
            tx.publish(len, deliverAt, offloaded);
            return;
        }
        frameCount++;
        if (imp.dropEveryNth() > 0 && frameCount % imp.dropEveryNth() == 0) {
            lostFrames++;
            releaseHeld(now, deliverAt, true);
            return;
        }
        if (imp.loss() > 0 && random.nextDouble() < imp.loss()) {
            lostFrames++;
            releaseHeld(now, deliverAt, true);
            return;
        }
        if (imp.corrupt() > 0 && random.nextDouble() < imp.corrupt()) {
            // past the 14-byte Ethernet header: a frame damaged there fails the receiving NIC's FCS and is
            // simply lost; corruption after it (e.g. in a switch buffer) is what the ICRC exists to catch
            int bit = random.nextInt((len - 14) * 8);
            int at = off + 14 + (bit >>> 3);
            tx.buffer.putByte(at, (byte) (tx.buffer.getByte(at) ^ (1 << (bit & 7))));
            corruptedFrames++;
        }
        if (heldLength < 0 && imp.reorder() > 0 && random.nextDouble() < imp.reorder()) {
            held.putBytes(0, tx.buffer, off, len);
            heldLength = len;
            heldOffloaded = offloaded;
            heldGapLeft = imp.reorderGap();
            heldSince = now;
            reorderedFrames++;
            return;
        }
        boolean dup = imp.duplicate() > 0 && random.nextDouble() < imp.duplicate();
        tx.publish(len, deliverAt, offloaded);
        if (dup) {
            int off2 = tx.claim();
            if (off2 >= 0) {
                tx.buffer.putBytes(off2, tx.buffer, off, len);
                tx.publish(len, deliverAt, offloaded);
                duplicatedFrames++;
            }
        }
        releaseHeld(now, deliverAt, true);
    }

    private long deliveryTime(long now, int len) {
        if (config.gbps() > 0) {
            long start = Math.max(now, serializerFreeAt);
            serializerFreeAt = start + (long) (len * 8 / config.gbps());
            return serializerFreeAt + config.latencyNanos();
        }
        return now + config.latencyNanos();
    }

    /** After a frame went by: count down the held frame's gap and publish it when due. */
    private void releaseHeld(long now, long deliverAt, boolean frameWentBy) {
        if (heldLength < 0) return;
        if (frameWentBy) heldGapLeft--;
        if (heldGapLeft <= 0 || now - heldSince >= impairment.reorderHoldNanos()) {
            int off = tx.claim();
            if (off < 0) return;
            tx.buffer.putBytes(off, held, 0, heldLength);
            tx.publish(heldLength, Math.max(deliverAt, now + config.latencyNanos()), heldOffloaded);
            heldLength = -1;
        }
    }

    @Override
    public int flush(long now) {
        if (heldLength >= 0 && now - heldSince >= impairment.reorderHoldNanos()) {
            releaseHeld(now, now + config.latencyNanos(), false);
            return 1;
        }
        return 0;
    }

    @Override
    public long nextEventTime() {
        long t = Long.MAX_VALUE;
        int i = rx.peek();
        if (i >= 0) t = rx.deliverAtOf(i);
        if (heldLength >= 0) t = Math.min(t, heldSince + impairment.reorderHoldNanos());
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
