package org.urdma.switchemu.world;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.MacControlFrame;

/**
 * A urdma device's port in a simulated world: the {@link Link} its {@link SoftDevice} (the real engine) sends and
 * receives through. The engine writes each packet straight into a frame-pool slot; the port queues it in a NIC's TX
 * FIFO of {@link #TX_QUEUE_FRAMES} frames (the engine is refused a slot beyond that) and serializes it at the link rate
 * in exact picoseconds behind the frames before it. A frame starts on the wire only when the one before it is through,
 * so received PFC/PAUSE on its priority stops the port as it stops a NIC: the frame in progress finishes, none starts
 * while paused. Arrived frames go to the engine in arrival order.
 */
public final class DeviceHost implements Link {
    /** Frames the port queues behind the one on the wire before it refuses the engine (back-pressure). */
    static final int TX_QUEUE_FRAMES = 16;
    private static final int WIRE_OVERHEAD = 24; // preamble 8, FCS 4, IFG 12
    private static final long PS_PER_S = 1_000_000_000_000L;

    final int index;
    private final String name;
    private final World world;
    private final FramePool pool;
    private final LinkFraming framing;
    private final long mac;
    private final int maxPayload;
    final int priority;
    SoftDevice device;
    Wire out;
    long rateBps;
    final List<Workload> workloads = new ArrayList<>();

    private long busyUntilPs;
    /** Frames committed but not yet on the wire, oldest first, with the time each was committed (ps). */
    private final int[] txFifo = new int[TX_QUEUE_FRAMES];
    private final long[] txCommittedPs = new long[TX_QUEUE_FRAMES];
    private int txHead;
    private int txCount;
    /** When a start-of-frame event is due (Long.MAX_VALUE: none). */
    private long txWakeAt = Long.MAX_VALUE;
    private final long[] pausedUntil = new long[MacControlFrame.PRIORITIES];
    /** When the pause in effect (or last in effect) on each priority began, ns. */
    private final long[] pausedFrom = new long[MacControlFrame.PRIORITIES];
    private long retryAt = Long.MAX_VALUE;
    private int claimed = -1;
    private int[] rx = new int[256];
    private int rxHead;
    private int rxCount;
    long pendingWake = Long.MAX_VALUE;
    long txFrames;
    long rxFrames;
    long pfcReceived;
    long foreignDropped;

    DeviceHost(int index, String name, World world, LinkFraming framing, long mac, int maxPayload, int priority) {
        if (priority < 0 || priority > 7) throw new IllegalArgumentException("priority: must be 0..7, was " + priority);
        this.index = index;
        this.name = name;
        this.world = world;
        this.pool = world.pool;
        this.framing = framing;
        this.mac = mac;
        this.maxPayload = maxPayload;
        this.priority = priority;
    }

    public String name() {
        return name;
    }

    public SoftDevice device() {
        return device;
    }

    public long mac() {
        return mac;
    }

    /** Frames this port sent and received; PFC/PAUSE frames it obeyed. */
    public long txFrames() {
        return txFrames;
    }

    public long rxFrames() {
        return rxFrames;
    }

    public long pfcReceived() {
        return pfcReceived;
    }

    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        // a retry time already due is spent: kept, it would hide this refusal's later one, and the pass's flush would
        // clear it, leaving a refused engine with no wake-up (it sent parity, so it reported work 0 and got no second pass)
        if (retryAt <= now) retryAt = Long.MAX_VALUE;
        if (pausedUntil[priority] > now) {
            retryAt = Math.min(retryAt, pausedUntil[priority]);
            return null;
        }
        startFrames(now); // a frame due to start now makes room first
        if (txCount == TX_QUEUE_FRAMES) {
            retryAt = Math.min(retryAt, txWakeAt); // the head starts then, in the future
            return null;
        }
        claimed = pool.acquire();
        TxPacket t = framing.begin(pool.buffer(claimed), pool.offset(claimed));
        return framing.canCarry(opcode) && framing.frameLength(opcode, payloadLength) <= FramePool.SLOT ? t : t.discard();
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
        int slot = claimed;
        claimed = -1;
        if (packet.discarded()) {
            pool.release(slot);
            return;
        }
        int len = framing.end(packet, route);
        int wireLen = len + packet.payloadLength() - packet.payloadBytes(); // a described payload's bytes still take wire time
        slot = pool.shrink(slot, len);
        pool.length(slot, len);
        pool.wireLength(slot, wireLen);
        int tail = (txHead + txCount) % TX_QUEUE_FRAMES;
        txFifo[tail] = slot;
        txCommittedPs[tail] = now * 1000;
        txCount++;
        startFrames(now);
    }

    /**
     * Puts queued frames on the wire, each when the one before is through, unless a pause on this port's priority is in
     * effect at that instant (a pause that arrives later does not stop a frame that already started); otherwise
     * arranges to be called again when the next one may start.
     */
    void startFrames(long now) {
        if (now >= txWakeAt) txWakeAt = Long.MAX_VALUE;
        while (txCount > 0) {
            long startPs = Math.max(busyUntilPs, txCommittedPs[txHead]);
            if (pausedFrom[priority] * 1000 <= startPs && startPs < pausedUntil[priority] * 1000) {
                startPs = pausedUntil[priority] * 1000;
            }
            if (startPs > now * 1000) {
                wakeTx(Math.ceilDiv(startPs, 1000), now);
                return;
            }
            int slot = txFifo[txHead];
            txHead = (txHead + 1) % TX_QUEUE_FRAMES;
            txCount--;
            busyUntilPs = startPs + (Math.max(pool.wireLength(slot), 60) + WIRE_OVERHEAD) * 8L * PS_PER_S / rateBps;
            txFrames++;
            world.carry(out, slot, Math.ceilDiv(busyUntilPs, 1000));
        }
    }

    private void wakeTx(long at, long now) {
        if (at < txWakeAt || txWakeAt < now) {
            txWakeAt = at;
            world.wakeTx(this, at);
        }
    }

    /** A frame's last bit arrived: PFC/PAUSE take effect at once, everything else waits for the engine. */
    void arrive(int slot, long now) {
        UnsafeBuffer b = pool.buffer(slot);
        int o = pool.offset(slot);
        int len = pool.length(slot);
        if (MacControlFrame.isMacControl(b, o, len)) {
            onMacControl(b, o, len, now);
            pool.release(slot);
            return;
        }
        long dst = ((long) (b.getShort(o, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) << 32)
                | (b.getInt(o + 2, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
        if (dst != mac && (dst & 0x0100_0000_0000L) == 0) { // flooded unicast for another host
            foreignDropped++;
            pool.release(slot);
            return;
        }
        if (rxCount == rx.length) {
            int[] bigger = new int[rx.length * 2];
            for (int i = 0; i < rxCount; i++) bigger[i] = rx[(rxHead + i) % rx.length];
            rx = bigger;
            rxHead = 0;
        }
        rx[(rxHead + rxCount++) % rx.length] = slot;
    }

    private void onMacControl(UnsafeBuffer b, int o, int len, long now) {
        int enabled;
        int quanta;
        if (MacControlFrame.isPfc(b, o, len)) {
            enabled = MacControlFrame.classEnable(b, o);
            quanta = MacControlFrame.pfcQuanta(b, o, priority);
        } else if (MacControlFrame.isPause(b, o, len)) {
            enabled = 0xFF;
            quanta = MacControlFrame.pauseQuanta(b, o);
        } else {
            return;
        }
        if ((enabled & (1 << priority)) == 0) return;
        pfcReceived++;
        if (pausedUntil[priority] <= now) pausedFrom[priority] = now; // a refresh extends the pause in effect
        pausedUntil[priority] = quanta <= 0 ? now : now + MacControlFrame.quantaToNanos(quanta, rateBps);
        if (quanta <= 0) {
            retryAt = Math.min(retryAt, now);
            startFrames(now); // XON: what waits goes now
        }
    }

    @Override
    public int receive(long now, PacketSink sink, int limit) {
        int n = 0;
        while (n < limit && rxCount > 0) {
            int slot = rx[rxHead];
            rxHead = (rxHead + 1) % rx.length;
            rxCount--;
            n++;
            rxFrames++;
            RxPacket p = framing.decode(pool.buffer(slot), pool.offset(slot), pool.length(slot));
            if (p != null) {
                sink.onPacket(p, now);
            } else {
                sink.onMalformed(framing.lastError(), now);
            }
            pool.release(slot);
            if (!sink.takesMore()) break;
        }
        return n;
    }

    @Override
    public int flush(long now) {
        if (retryAt <= now) retryAt = Long.MAX_VALUE;
        return 0;
    }

    @Override
    public long nextEventTime() {
        return rxCount > 0 ? Long.MIN_VALUE : retryAt;
    }

    @Override
    public int maxPayload() {
        return maxPayload;
    }

    @Override
    public String toString() {
        return name + Arrays.toString(new long[] {txFrames, rxFrames});
    }
}
