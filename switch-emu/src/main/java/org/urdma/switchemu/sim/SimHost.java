package org.urdma.switchemu.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.switchemu.frame.FrameView;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.frame.PortFormat;
import org.urdma.transport.wire.MacControlFrame;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A host with one port: sends its flows round-robin at line rate (or their own pace), honours PFC and
 * PAUSE per priority as a NIC does, and keeps per-flow receive statistics as a sink.
 */
public final class SimHost implements SimNode {
    private static final int WIRE_OVERHEAD = 24;

    private final Simulator sim;
    private final String name;
    private final long mac;
    private SimLink link;
    private final List<Flow> flows = new ArrayList<>();
    private final long[] pausedUntil = new long[8];
    /** The port is busy until busyUntil + busyRem / rate ns, exactly (rounding per frame would add up). */
    private long busyUntil;
    private long busyRem;
    private long pendingWake = Long.MAX_VALUE;
    private int roundRobin;
    private final FrameView view = new FrameView();

    private final Map<Integer, FlowStats> received = new HashMap<>();
    public final long[] pfcRx = new long[8];
    /** Distinct PFC class-enable vectors received. */
    public final Set<Integer> pfcVectors = new LinkedHashSet<>();
    public long pauseRx;
    public long rxFrames;
    /** Unicast frames for another MAC (flooded to us). */
    public long rxForeign;
    public long txFrames;

    /** Sees what the host sends and the flow control it receives. */
    public interface Observer {
        default void sent(SimHost host, Flow flow, long startNs) {
        }

        /** A PFC (or, with enable 0xFF, PAUSE) frame arrived; {@code quanta[p]} for enabled p. */
        default void flowControl(SimHost host, int enable, int[] quanta, long now) {
        }
    }

    private Observer observer = new Observer() {
    };
    private final int[] quantaScratch = new int[8];

    public void observe(Observer observer) {
        this.observer = observer;
    }

    /** Puts a raw frame on the wire at {@code at} (ignores flow control: for control frames and odd input). */
    public void sendRaw(byte[] frame, long at) {
        sim.schedule(at, () -> {
            if (sim.now() > busyUntil) {
                serialize(sim.now(), 0, frame.length);
            } else {
                serialize(busyUntil, busyRem, frame.length);
            }
            txFrames++;
            link.carry(this, frame, busyEnd());
        });
    }

    public SimHost(Simulator sim, String name, long mac) {
        this.sim = sim;
        this.name = name;
        this.mac = mac;
    }

    @Override
    public String name() {
        return name;
    }

    public long mac() {
        return mac;
    }

    public void attach(SimLink link) {
        this.link = link;
    }

    public Flow send(Flow flow) {
        flows.add(flow);
        long at = Math.max(flow.startNs, sim.now());
        flow.nextNs = at;
        sim.schedule(at, () -> trySend(sim.now()));
        return flow;
    }

    public FlowStats stats(int flowId) {
        return received.computeIfAbsent(flowId, k -> new FlowStats());
    }

    public boolean paused(int priority, long now) {
        return pausedUntil[priority] > now;
    }

    /** First whole ns at or after the end of the current transmission. */
    private long busyEnd() {
        return busyRem == 0 ? busyUntil : busyUntil + 1;
    }

    private void serialize(long startNs, long startRem, int frameBytes) {
        long rate = link.rateBps();
        long t = (long) (Math.max(frameBytes, 60) + WIRE_OVERHEAD) * 8L * 1_000_000_000L;
        busyRem = startRem + t % rate;
        busyUntil = startNs + t / rate;
        if (busyRem >= rate) {
            busyRem -= rate;
            busyUntil++;
        }
    }

    private void trySend(long now) {
        if (busyEnd() > now) {
            wakeAt(busyEnd());
            return;
        }
        int n = flows.size();
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Flow f = flows.get((roundRobin + i) % n);
            if (f.done()) {
                continue;
            }
            long ready = Math.max(f.nextNs, pausedUntil[f.priority]);
            if (ready > now) {
                earliest = Math.min(earliest, ready);
                continue;
            }
            transmit(f, ready, now);
            roundRobin = (roundRobin + i + 1) % n;
            wakeAt(busyEnd());
            return;
        }
        if (earliest != Long.MAX_VALUE) {
            wakeAt(earliest);
        }
    }

    /** Sends the flow's next frame; it became ready at {@code ready} (<= now) and starts when the port is free. */
    private void transmit(Flow f, long ready, long now) {
        int pcp = f.tagged ? f.priority : -1;
        byte[] frame = f.ipv4
            ? Frames.ipv4Udp(f.destination, mac, pcp, f.dscp, f.ecn, f.frameBytes)
            : Frames.ethernet(f.destination, mac, pcp, 0x88B6, f.frameBytes);
        Frames.stamp(frame, f.id, f.sent, now);
        f.sent++;
        f.nextNs = now + f.gapNs;
        // back to back (ready while the port was busy): start exactly where the last frame ended
        if (ready > busyUntil) {
            serialize(ready, 0, frame.length);
        } else {
            serialize(busyUntil, busyRem, frame.length);
        }
        txFrames++;
        observer.sent(this, f, now);
        link.carry(this, frame, busyEnd());
    }

    private void wakeAt(long t) {
        if (t < pendingWake || pendingWake <= sim.now()) {
            pendingWake = t;
            sim.schedule(t, () -> {
                if (sim.now() >= pendingWake) {
                    pendingWake = Long.MAX_VALUE;
                }
                trySend(sim.now());
            });
        }
    }

    @Override
    public void receive(int port, byte[] frame, long now) {
        UnsafeBuffer b = new UnsafeBuffer(frame);
        if (!view.wrap(b, 0, frame.length, PortFormat.ETHERNET)) {
            return;
        }
        long da = view.destination();
        if (da == Mac.MAC_CONTROL && view.etherType() == FrameView.ETHERTYPE_MAC_CONTROL) {
            onMacControl(b, frame.length, now);
            return;
        }
        rxFrames++;
        if (da != mac && !Mac.isGroup(da)) {
            rxForeign++;
            return;
        }
        if (frame.length < Frames.MIN_LENGTH) {
            return;
        }
        boolean ce = view.isIpv4() && view.ecn() == FrameView.ECN_CE;
        stats(Frames.flow(frame)).record(Frames.seq(frame), now - Frames.sendTime(frame), ce, now);
    }

    /** Pause time rounded up (a NIC never resumes early; a quantum at 400 Gbit/s is 1.28 ns). */
    private static long quantaNs(int quanta, long rate) {
        return Math.ceilDiv(quanta * 512L * 1_000_000_000L, rate);
    }

    private void onMacControl(UnsafeBuffer b, int length, long now) {
        long rate = link.rateBps();
        if (MacControlFrame.isPfc(b, 0, length)) {
            int enable = MacControlFrame.classEnable(b, 0);
            pfcVectors.add(enable);
            for (int p = 0; p < 8; p++) {
                if ((enable & (1 << p)) != 0) {
                    pfcRx[p]++;
                    int q = MacControlFrame.pfcQuanta(b, 0, p);
                    quantaScratch[p] = q;
                    pausedUntil[p] = q == 0 ? now : now + quantaNs(q, rate);
                }
            }
            observer.flowControl(this, enable, quantaScratch, now);
        } else if (MacControlFrame.isPause(b, 0, length)) {
            int q = MacControlFrame.pauseQuanta(b, 0);
            pauseRx++;
            for (int p = 0; p < 8; p++) {
                quantaScratch[p] = Math.max(q, 0);
                pausedUntil[p] = q <= 0 ? now : now + quantaNs(q, rate);
            }
            observer.flowControl(this, 0xFF, quantaScratch, now);
        }
        trySend(now);
    }
}
