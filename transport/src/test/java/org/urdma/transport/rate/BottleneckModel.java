package org.urdma.transport.rate;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Test-only packet model of one bottleneck: backlogged senders, each paced by its own {@link RateControl} and by its
 * NIC, share a FIFO served at {@code rateBps}. Between the senders and the queue a path may drop packets at random
 * (seeded); the queue drops what does not fit its buffer, and marks CE at dequeue with RED between kmin and kmax
 * (probability pmax at kmax, 1 above). Receivers answer CE with at most one CNP per flow per {@code cnpInterval},
 * acknowledge every packet (acked bytes + RTT), and report their loss fraction every {@code lossReportNanos}.
 * Feedback takes {@code oneWayNanos} back; data takes {@code oneWayNanos} to the queue plus its service time.
 * Allocates freely: it is a test harness, not the data path.
 */
final class BottleneckModel {
    long rateBps = 10_000_000_000L;
    long senderRateBps = 10_000_000_000L;
    long oneWayNanos = 4_000;
    int mtu = 1000;
    long kminBytes = Long.MAX_VALUE;
    long kmaxBytes = Long.MAX_VALUE;
    double pmax = 0.01;
    long bufferBytes = Long.MAX_VALUE;
    double randomLoss;
    long cnpIntervalNanos = 50_000;
    long lossReportNanos;
    long seed = 1;

    private static final int SEND = 0;
    private static final int AT_QUEUE = 1;
    private static final int DEPART = 2;
    private static final int CNP = 3;
    private static final int ACK = 4;
    private static final int LOSS_REPORT = 5;

    record Ev(long t, long seq, int type, int flow, long sentAt) { }

    final class Flow {
        final RateControl rc;
        final long startAt;
        long pendingSend = Long.MAX_VALUE;
        long nicFree = Long.MIN_VALUE;
        long lastCnp = Long.MIN_VALUE;
        long sentBytes;
        long deliveredBytes;
        long windowDelivered;
        long lostInReport;
        long receivedInReport;
        long drops;

        Flow(RateControl rc, long startAt) {
            this.rc = rc;
            this.startAt = startAt;
        }
    }

    private final PriorityQueue<Ev> events = new PriorityQueue<>((a, b) -> a.t != b.t ? Long.compare(a.t, b.t) : Long.compare(a.seq, b.seq));
    private final ArrayDeque<long[]> queue = new ArrayDeque<>(); // {flow, sentAt}
    private long seqNo;
    private long queueBytes;
    private boolean serving;
    Flow[] flows = new Flow[0];
    private SplittableRandom random;
    long now;
    long windowStart = Long.MAX_VALUE;
    /** Time-weighted queue bytes since windowStart, and the time it spent above kmax. */
    double queueIntegral;
    long timeAboveKmax;
    long maxQueueInWindow;
    long lastQueueChange;
    long drops;
    long marks;

    Flow add(RateControl rc, long startAt) {
        Flow[] f = java.util.Arrays.copyOf(flows, flows.length + 1);
        f[flows.length] = new Flow(rc, startAt);
        flows = f;
        return f[flows.length - 1];
    }

    private void at(long t, int type, int flow, long sentAt) {
        events.add(new Ev(t, seqNo++, type, flow, sentAt));
    }

    private long txNanos(long bps) {
        return Math.max(1, mtu * 8_000_000_000L / bps);
    }

    /** Runs until {@code end}; per-flow delivered bytes from {@code measureFrom} on go to windowDelivered. */
    void run(long end, long measureFrom) {
        if (random == null) {
            random = new SplittableRandom(seed);
            for (int i = 0; i < flows.length; i++) {
                flows[i].pendingSend = flows[i].startAt;
                at(flows[i].startAt, SEND, i, 0);
                if (lossReportNanos > 0) at(flows[i].startAt + lossReportNanos, LOSS_REPORT, i, 0);
            }
        }
        windowStart = measureFrom;
        while (!events.isEmpty() && events.peek().t <= end) {
            Ev e = events.poll();
            now = e.t;
            Flow f = e.flow >= 0 ? flows[e.flow] : null;
            switch (e.type) {
                case SEND -> send(e, f);
                case AT_QUEUE -> arrive(e, f);
                case DEPART -> depart();
                case CNP -> {
                    f.rc.onCongestion(CongestionSignal.CNP, now);
                    wake(e.flow, f);
                }
                case ACK -> {
                    f.rc.onAck(mtu, now - e.sentAt, now);
                    wake(e.flow, f);
                }
                case LOSS_REPORT -> {
                    long n = f.lostInReport + f.receivedInReport;
                    if (n > 0) f.rc.onLossRate((double) f.lostInReport / n, now);
                    f.lostInReport = 0;
                    f.receivedInReport = 0;
                    at(now + lossReportNanos, LOSS_REPORT, e.flow, 0);
                }
                default -> throw new IllegalStateException();
            }
        }
        queueChanged(end);
        now = end;
    }

    private void wake(int i, Flow f) {
        long t = Math.max(Math.max(f.rc.nextSendTime(now), f.nicFree), now);
        if (t < f.pendingSend) {
            f.pendingSend = t;
            at(t, SEND, i, 0);
        }
    }

    private void send(Ev e, Flow f) {
        if (e.t != f.pendingSend) return; // superseded
        long ready = Math.max(f.rc.nextSendTime(now), f.nicFree);
        if (ready > now) {
            f.pendingSend = ready;
            at(ready, SEND, e.flow, 0);
            return;
        }
        f.rc.onSent(mtu, now);
        f.sentBytes += mtu;
        f.nicFree = now + txNanos(senderRateBps);
        at(now + oneWayNanos, AT_QUEUE, e.flow, now);
        long next = Math.max(f.rc.nextSendTime(now), f.nicFree);
        f.pendingSend = next;
        at(next, SEND, e.flow, 0);
    }

    private void arrive(Ev e, Flow f) {
        if (randomLoss > 0 && random.nextDouble() < randomLoss || queueBytes + mtu > bufferBytes) {
            f.lostInReport++;
            f.drops++;
            drops++;
            return;
        }
        queueChanged(now);
        queue.add(new long[] {e.flow, e.sentAt});
        queueBytes += mtu;
        if (!serving) {
            serving = true;
            at(now + txNanos(rateBps), DEPART, -1, 0);
        }
    }

    private void depart() {
        long[] p = queue.poll();
        queueChanged(now);
        boolean ce = mark(queueBytes);
        queueBytes -= mtu;
        int i = (int) p[0];
        Flow f = flows[i];
        f.deliveredBytes += mtu;
        f.receivedInReport++;
        if (now >= windowStart) f.windowDelivered += mtu;
        if (ce) {
            marks++;
            if (f.lastCnp == Long.MIN_VALUE || now - f.lastCnp >= cnpIntervalNanos) {
                f.lastCnp = now;
                at(now + oneWayNanos, CNP, i, 0);
            }
        }
        at(now + oneWayNanos, ACK, i, p[1]);
        if (queue.isEmpty()) {
            serving = false;
        } else {
            at(now + txNanos(rateBps), DEPART, -1, 0);
        }
    }

    private boolean mark(long q) {
        if (q <= kminBytes) return false;
        if (q > kmaxBytes) return true;
        return random.nextDouble() < pmax * (q - kminBytes) / (double) (kmaxBytes - kminBytes);
    }

    private void queueChanged(long t) {
        if (t > windowStart) {
            long from = Math.max(lastQueueChange, windowStart);
            if (t > from) {
                queueIntegral += (double) queueBytes * (t - from);
                if (queueBytes > kmaxBytes) timeAboveKmax += t - from;
            }
            maxQueueInWindow = Math.max(maxQueueInWindow, queueBytes);
        }
        lastQueueChange = t;
    }

    long queueBytes() {
        return queueBytes;
    }

    double meanQueueInWindow() {
        return queueIntegral / (now - windowStart);
    }

    /** Jain's index of the flows' delivered bytes in the window: 1 is perfectly fair. */
    double jain() {
        double sum = 0;
        double sq = 0;
        for (Flow f : flows) {
            sum += f.windowDelivered;
            sq += (double) f.windowDelivered * f.windowDelivered;
        }
        return sum * sum / (flows.length * sq);
    }

    /** Bits per second delivered over the window, all flows. */
    double goodputBps() {
        long b = 0;
        for (Flow f : flows) b += f.windowDelivered;
        return b * 8e9 / (now - windowStart);
    }
}
