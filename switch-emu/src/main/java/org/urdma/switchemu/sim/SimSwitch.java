package org.urdma.switchemu.sim;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.transport.impair.Impairment;

import java.util.SplittableRandom;

/**
 * A {@link SwitchCore} under the simulator's virtual clock: frames from links go in, {@code poll} runs at
 * the times the core asks for, transmitted frames go onto the port's link. Optional netem-style
 * impairment per port and direction (ingress: before the core; egress: after serialization).
 */
public final class SimSwitch implements SimNode {
    private final Simulator sim;
    private final String name;
    private final SwitchCore core;
    private final SimLink[] links;
    private final Impairment[] ingress;
    private final Impairment[] egress;
    private long pendingWake = Long.MAX_VALUE;
    private SwitchCapture capture;

    public SimSwitch(Simulator sim, String name, SwitchConfig config, long seed) {
        this.sim = sim;
        this.name = name;
        this.core = new SwitchCore(config, this::transmitted, new SplittableRandom(seed));
        this.links = new SimLink[core.portCount()];
        this.ingress = new Impairment[core.portCount()];
        this.egress = new Impairment[core.portCount()];
    }

    @Override
    public String name() {
        return name;
    }

    public SwitchCore core() {
        return core;
    }

    public void attach(int port, SimLink link) {
        links[port] = link;
    }

    /** Records every port's traffic in pcap files (see {@link SwitchCapture}). */
    public void capture(SwitchCapture capture) {
        this.capture = capture;
    }

    public void impairIngress(int port, Impairment impairment) {
        ingress[port] = impairment;
    }

    public void impairEgress(int port, Impairment impairment) {
        egress[port] = impairment;
    }

    /** The impairment frames coming in on {@code port} pass (or null). */
    public Impairment ingressImpairment(int port) {
        return ingress[port];
    }

    /** The impairment frames leaving by {@code port} pass (or null). */
    public Impairment egressImpairment(int port) {
        return egress[port];
    }

    @Override
    public void receive(int port, byte[] frame, long now) {
        if (capture != null) {
            capture.received(port, new UnsafeBuffer(frame), 0, frame.length, now);
        }
        Impairment imp = ingress[port];
        if (imp == null) {
            enter(port, frame, now);
            return;
        }
        Impairment.Result r = imp.offer(now, frame.length);
        for (int i = 0; i < r.copies; i++) {
            byte[] copy = i == r.copies - 1 ? frame : frame.clone();
            corrupt(copy, r, i);
            long at = r.releaseAt[i];
            sim.schedule(at, () -> enter(port, copy, at));
        }
    }

    private void enter(int port, byte[] frame, long now) {
        core.onFrame(port, new UnsafeBuffer(frame), 0, frame.length, now);
        wake(now);
    }

    private void wake(long now) {
        long next = core.poll(now);
        if (next != Long.MAX_VALUE && (next < pendingWake || pendingWake <= now)) {
            pendingWake = next;
            sim.schedule(next, () -> {
                if (sim.now() >= pendingWake) {
                    pendingWake = Long.MAX_VALUE;
                }
                wake(sim.now());
            });
        }
    }

    private void transmitted(int port, DirectBuffer buffer, int offset, int length, long txStart, long txEnd) {
        if (capture != null) {
            capture.sent(port, buffer, offset, length, txStart);
        }
        SimLink link = links[port];
        if (link == null) {
            return;
        }
        byte[] frame = new byte[length];
        buffer.getBytes(offset, frame);
        Impairment imp = egress[port];
        if (imp == null) {
            link.carry(this, frame, txEnd);
            return;
        }
        Impairment.Result r = imp.offer(txEnd, length);
        for (int i = 0; i < r.copies; i++) {
            byte[] copy = i == r.copies - 1 ? frame : frame.clone();
            corrupt(copy, r, i);
            long at = r.releaseAt[i];
            if (at <= txEnd) {
                link.carry(this, copy, txEnd);
            } else {
                sim.schedule(at, () -> link.carry(this, copy, at));
            }
        }
    }

    private static void corrupt(byte[] frame, Impairment.Result r, int i) {
        if (r.corruptByte[i] >= 0 && r.corruptByte[i] < frame.length) {
            frame[r.corruptByte[i]] ^= (byte) r.corruptMask[i];
        }
    }
}
