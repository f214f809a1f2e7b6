package org.urdma.switchemu.sim;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;

/**
 * Soft devices on the ports of one real {@link SwitchCore}, under the virtual clock of a
 * {@link org.urdma.transport.driver.SimulatedDriver}: each host's {@link Link} frames packets with a
 * {@link LinkFraming}, serializes them at the host's line rate and hands them to its switch port a propagation delay
 * later; what the switch sends on that port reaches the host a propagation delay after its last bit. The switch is
 * polled from whichever device runs first at an instant, and its next wake-up joins every host's next-event time, so
 * the driver visits every time anything happens. Allocates per frame (test code).
 */
final class SwitchedHosts {
    private record Timed(long at, byte[] frame) {
    }

    final SwitchCore core;
    private final Host[] hosts;
    private long wakeAt = Long.MAX_VALUE;

    SwitchedHosts(SwitchConfig config, long seed) {
        core = new SwitchCore(config, this::transmitted, new SplittableRandom(seed));
        hosts = new Host[core.portCount()];
    }

    /** The link of a host on switch port {@code port}, sending at {@code gbps}, {@code propagationNs} from the switch. */
    Host attach(int port, LinkFraming framing, long mac, double gbps, long propagationNs, int maxPayload) {
        Host h = new Host(port, framing, gbps, propagationNs, maxPayload);
        hosts[port] = h;
        core.addStaticMac(mac, port);
        return h;
    }

    /** Feeds the switch every frame that reached it by {@code now}, in arrival order, and runs it to {@code now}. */
    private void advance(long now) {
        while (true) {
            Host first = null;
            for (Host h : hosts) {
                if (h != null && !h.toSwitch.isEmpty() && h.toSwitch.peek().at <= now
                        && (first == null || h.toSwitch.peek().at < first.toSwitch.peek().at)) {
                    first = h;
                }
            }
            if (first == null) break;
            Timed t = first.toSwitch.poll();
            core.onFrame(first.port, new UnsafeBuffer(t.frame), 0, t.frame.length, t.at);
            wakeAt = Long.MIN_VALUE;
        }
        if (wakeAt <= now) wakeAt = core.poll(now);
    }

    private void transmitted(int port, DirectBuffer buffer, int offset, int length, long txStart, long txEnd) {
        Host h = hosts[port];
        if (h == null) return;
        byte[] f = new byte[length];
        buffer.getBytes(offset, f);
        h.fromSwitch.add(new Timed(txEnd + h.propagation, f));
    }

    /** One host's attachment: a {@link Link} for its {@link org.urdma.transport.engine.SoftDevice}. */
    final class Host implements Link {
        final int port;
        private final LinkFraming framing;
        private final double gbps;
        private final long propagation;
        private final int maxPayload;
        private final UnsafeBuffer slot = new UnsafeBuffer(ByteBuffer.allocateDirect(16384));
        final ArrayDeque<Timed> toSwitch = new ArrayDeque<>();
        final ArrayDeque<Timed> fromSwitch = new ArrayDeque<>();
        private long freeAt;
        /** Sees each frame this host receives, before it is decoded. */
        FrameWatcher watcher;
        long sentFrames;

        Host(int port, LinkFraming framing, double gbps, long propagation, int maxPayload) {
            this.port = port;
            this.framing = framing;
            this.gbps = gbps;
            this.propagation = propagation;
            this.maxPayload = maxPayload;
        }

        @Override
        public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
            TxPacket t = framing.begin(slot, 0);
            return framing.canCarry(opcode) ? t : t.discard();
        }

        @Override
        public void commit(TxPacket packet, Route route, long now) {
            if (packet.discarded()) return;
            int len = framing.end(packet, route);
            byte[] f = new byte[len];
            slot.getBytes(0, f);
            long start = Math.max(now, freeAt);
            freeAt = start + (long) Math.ceil(len * 8 / gbps);
            toSwitch.add(new Timed(freeAt + propagation, f));
            sentFrames++;
        }

        @Override
        public int receive(long now, PacketSink sink, int limit) {
            advance(now);
            int n = 0;
            while (n < limit && !fromSwitch.isEmpty() && fromSwitch.peek().at <= now) {
                Timed t = fromSwitch.poll();
                n++;
                UnsafeBuffer b = new UnsafeBuffer(t.frame);
                if (watcher != null) watcher.onFrame(b, t.frame.length, now);
                RxPacket p = framing.decode(b, 0, t.frame.length);
                if (p != null) sink.onPacket(p, now);
            }
            return n;
        }

        @Override
        public int flush(long now) {
            advance(now);
            return 0;
        }

        @Override
        public long nextEventTime() {
            long t = wakeAt == Long.MIN_VALUE ? Long.MAX_VALUE : wakeAt;
            if (!toSwitch.isEmpty()) t = Math.min(t, toSwitch.peek().at);
            if (!fromSwitch.isEmpty()) t = Math.min(t, fromSwitch.peek().at);
            return t;
        }

        @Override
        public int maxPayload() {
            return maxPayload;
        }
    }

    @FunctionalInterface
    interface FrameWatcher {
        void onFrame(DirectBuffer frame, int length, long now);
    }
}
