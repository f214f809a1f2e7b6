package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.impair.Impairment;

import java.util.SplittableRandom;

/**
 * The real-time driver: an Agrona {@link Agent} that owns a {@link SwitchCore} and its ports. Each duty
 * cycle reads the clock once, takes received frames (through the port's ingress impairment), releases
 * frames whose impairment delay is over (timer wheel), and polls the core when it has input or its
 * deadline has come; the core's transmissions go out (through the egress impairment). The core paces
 * each port at its configured rate; frames are handed to the port when their transmission starts.
 * Run it with an {@code AgentRunner} and an idle strategy, or call {@link #doWork()} from a test.
 */
public final class RealTimeSwitch implements Agent {
    private final SwitchCore core;
    private final FramePort[] ports;
    private final Impairment[] ingress;
    private final Impairment[] egress;
    private final NanoClock clock;
    private final DelayLine delayLine;
    private final FramePort.Receiver[] receivers;
    private final DelayLine.Release release = this::release;
    private final String name;
    private long now;
    private long deadline = Long.MIN_VALUE;
    private boolean input;
    private SwitchCapture capture;
    /** Frames the port or the delay line could not take. */
    public final long[] txRefused;
    public final long[] delayRefused;

    public RealTimeSwitch(String name, SwitchConfig config, FramePort[] ports, Impairment[] ingress, Impairment[] egress,
                          NanoClock clock, long seed, int delaySlots) {
        if (ports.length != config.ports().size()) {
            throw new IllegalArgumentException("ports: " + ports.length + " given for " + config.ports().size() + " configured");
        }
        this.name = name;
        this.core = new SwitchCore(config, this::transmitted, new SplittableRandom(seed));
        this.ports = ports.clone();
        this.ingress = ingress == null ? new Impairment[ports.length] : ingress.clone();
        this.egress = egress == null ? new Impairment[ports.length] : egress.clone();
        this.clock = clock;
        this.now = clock.nanoTime();
        this.delayLine = new DelayLine(delaySlots, 9216 + 64, now);
        this.receivers = new FramePort.Receiver[ports.length];
        this.txRefused = new long[ports.length];
        this.delayRefused = new long[ports.length];
        for (int p = 0; p < ports.length; p++) {
            int port = p;
            receivers[p] = (buffer, offset, length) -> received(port, buffer, offset, length);
        }
    }

    /** Records every port's traffic in pcap files; set before the agent runs. */
    public void capture(SwitchCapture capture) {
        this.capture = capture;
    }

    public SwitchCore core() {
        return core;
    }

    @Override
    public String roleName() {
        return "switch-" + name;
    }

    @Override
    public int doWork() {
        now = clock.nanoTime();
        int work = 0;
        input = false;
        for (int p = 0; p < ports.length; p++) {
            work += ports[p].receive(receivers[p], 64);
        }
        work += delayLine.poll(now, release);
        if (input || now >= deadline) {
            deadline = core.poll(now);
            work++;
        }
        for (FramePort port : ports) {
            port.flush();
        }
        return work;
    }

    /** Frames held by impairment delay right now. */
    public int delayed() {
        return delayLine.held();
    }

    private void received(int port, DirectBuffer buffer, int offset, int length) {
        if (capture != null) {
            capture.received(port, buffer, offset, length, now);
        }
        Impairment imp = ingress[port];
        if (imp == null) {
            core.onFrame(port, buffer, offset, length, now);
            input = true;
            return;
        }
        Impairment.Result r = imp.offer(now, length);
        for (int i = 0; i < r.copies; i++) {
            if (r.releaseAt[i] <= now && r.corruptByte[i] < 0) {
                core.onFrame(port, buffer, offset, length, now);
                input = true;
            } else if (!delayLine.hold(r.releaseAt[i], port, true, buffer, offset, length, r.corruptByte[i], r.corruptMask[i])) {
                delayRefused[port]++;
            }
        }
    }

    private void release(int port, boolean toIngress, MutableDirectBuffer buffer, int offset, int length, long at) {
        if (toIngress) {
            core.onFrame(port, buffer, offset, length, now);
            input = true;
        } else if (!ports[port].send(buffer, offset, length)) {
            txRefused[port]++;
        }
    }

    private void transmitted(int port, DirectBuffer buffer, int offset, int length, long txStart, long txEnd) {
        if (capture != null) {
            capture.sent(port, buffer, offset, length, txStart);
        }
        Impairment imp = egress[port];
        if (imp == null) {
            if (!ports[port].send(buffer, offset, length)) {
                txRefused[port]++;
            }
            return;
        }
        Impairment.Result r = imp.offer(txEnd, length);
        for (int i = 0; i < r.copies; i++) {
            if (!delayLine.hold(r.releaseAt[i], port, false, buffer, offset, length, r.corruptByte[i], r.corruptMask[i])) {
                delayRefused[port]++;
            }
        }
    }
}
