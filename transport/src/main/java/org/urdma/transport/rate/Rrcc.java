package org.urdma.transport.rate;

import java.util.Arrays;

/**
 * URDMA's RRCC (reference-rate congestion control, seed 001 §2.2.2): BBR-like pacing from a measured bottleneck
 * bandwidth and minimum RTT, plus the receiver's loss-rate feedback and a planned reference rate.
 * <ul>
 * <li><b>Feeding it.</b> The completer calls {@link #onAck(long, long, long)} once per ACK with the payload bytes it
 *     newly acknowledges and the RTT sample of the packet it answers (TS/AETH-EXT, WIRE.md §10; -1 when none), and
 *     {@link #onLossRate} with each loss-rate report of the receiver. The delivery rate is the ACK rate: bytes acked
 *     over at least a quarter of a round and 4 ACKs, at most what we sent per round in this round or the last, or in
 *     the sample's own interval (a burst of late ACKs is not a faster path, while a probe that sends more is measured
 *     at what it sent whether its ACKs come a round later or, on a sub-millisecond path, within it); the bottleneck bandwidth is the largest such sample of the last
 *     10 rounds (a round is one min RTT, at least 1 ms).</li>
 * <li><b>Startup</b>: from {@code init} (before any RTT sample) the rate is 2 × the bottleneck estimate, which doubles
 *     it every RTT; when the estimate has not grown by 25 % for 3 rounds, the bottleneck is found.</li>
 * <li><b>Drain</b>: 1/2.885 of the bottleneck until an RTT sample is within 1.25 × min RTT (the queue startup built
 *     is gone), or 8 rounds.</li>
 * <li><b>Probe bandwidth</b>: cycles of 8 rounds with gains 1.25, 0.75, 1, 1, 1, 1, 1, 1 (probe, drain what the
 *     probe queued, cruise); a larger bandwidth found by the probe raises the estimate.</li>
 * <li><b>Probe RTT</b>: when the min RTT has not been refreshed for {@code probeRttInterval}, the rate drops to
 *     {@code probeRttGain} × the bottleneck for {@code probeRttTime} (and at least one round) so the queue empties and
 *     the min RTT is measured again.</li>
 * <li><b>Loss feedback</b>: the reports are averaged (EWMA, gain 1/4, so that one report's sampling noise, e.g. 12
 *     losses in 600 packets at 1 % random loss, is not taken for congestion); while the average is above
 *     {@code lossThreshold} the bottleneck estimate is cut by the average fraction, not in startup, and at most once
 *     per round: a round since the last cut has passed when both a round's time and the bytes in flight at the cut
 *     (the estimate's BDP) were delivered since, so the loss reports of one round (of one queue overflow) cut once; at or under it (random loss, repaired by FEC/SACK) nothing changes.</li>
 * <li><b>Reference rate</b> ({@code ref}): the QP starts at it, skipping startup, in probe-bandwidth with the estimate
 *     at ref; the bottleneck estimate never falls below the floor {@code floor} × ref (the paper: max(measured
 *     bottleneck, ref)), nor does the rate, except in probe-bandwidth's drain phase (0.75 × the estimate), which
 *     drains what the probe queued so a cycle averages the estimate.</li>
 * </ul>
 * <li><b>Least rate</b>: {@value #MIN_PACKETS_PER_ROUND} of the largest packets sent per round (as TCP's least window),
 *     or the floor if higher: without it a run of cuts took the rate to 1 bit/s, where a probe finds nothing.</li>
 * Pacing by next-available time ({@link Pacer}); rates are payload bit/s; no clock, no randomness, no allocation.
 */
public final class Rrcc implements RateControl {
    /** @param maxBps the cap (0: none): the pacing rate never exceeds it, not in startup, a probe or at the floor */
    public record Config(long refBps, double floor, long initBps, double lossThreshold, long probeRttIntervalNanos,
                         long probeRttTimeNanos, double probeRttGain, long maxBps) {
        public Config {
            if (maxBps < 0) throw new IllegalArgumentException("cc: rrcc max must be >= 0 bit/s (0: none), was " + maxBps);
            if (refBps < 0) throw new IllegalArgumentException("cc: rrcc ref must be >= 0 bit/s (0: none), was " + refBps);
            if (!(floor >= 0 && floor <= 1)) throw new IllegalArgumentException("cc: rrcc floor must be 0..1 (a fraction of ref), was " + floor);
            if (initBps < 1) throw new IllegalArgumentException("cc: rrcc init must be > 0 bit/s, was " + initBps);
            if (!(lossThreshold >= 0 && lossThreshold < 1)) {
                throw new IllegalArgumentException("cc: rrcc lossThreshold must be 0..1, was " + lossThreshold);
            }
            if (probeRttIntervalNanos < 1) throw new IllegalArgumentException("cc: rrcc probeRttInterval must be > 0, was " + probeRttIntervalNanos);
            if (probeRttTimeNanos < 0) throw new IllegalArgumentException("cc: rrcc probeRttTime must be >= 0, was " + probeRttTimeNanos);
            if (!(probeRttGain > 0 && probeRttGain <= 1)) throw new IllegalArgumentException("cc: rrcc probeRttGain must be in (0, 1], was " + probeRttGain);
        }

        /** No reference rate, start at 100 Mbit/s, loss threshold 2 %, min-RTT probe of 200 ms every 10 s at half rate. */
        public static Config defaults() {
            return new Config(0, 1.0, 100_000_000L, 0.02, 10_000_000_000L, 200_000_000L, 0.5, 0);
        }

        /** From {@code key=value,...}: ref, max, init (rates like 10g), floor, lossThreshold, probeRttGain, probeRttInterval and probeRttTime (ms). */
        public static Config parse(String options) {
            PolicySpec s = PolicySpec.parse("rrcc", options);
            Config d = defaults();
            Config c = new Config(s.rate("ref", 0), s.number("floor", d.floor), s.rate("init", d.initBps),
                    s.number("lossThreshold", d.lossThreshold),
                    Math.round(s.number("probeRttInterval", d.probeRttIntervalNanos / 1e6) * 1e6),
                    Math.round(s.number("probeRttTime", d.probeRttTimeNanos / 1e6) * 1e6), s.number("probeRttGain", d.probeRttGain),
                    s.rate("max", 0));
            s.done();
            return c;
        }
    }

    /** States, in the order a QP without a reference rate meets them. */
    public enum State { STARTUP, DRAIN, PROBE_BW, PROBE_RTT }

    private static final double STARTUP_GAIN = 2;
    private static final double DRAIN_GAIN = 1 / 2.885;
    private static final double[] CYCLE = {1.25, 0.75, 1, 1, 1, 1, 1, 1};
    private static final int BW_ROUNDS = 10;
    private static final int MIN_SAMPLE_ACKS = 4;
    private static final int MAX_DRAIN_ROUNDS = 8;
    private static final double LOSS_GAIN = 0.25;
    /**
     * Shortest round: on a sub-millisecond path ACKs (every N packets) come rarer than the RTT, so rounds of one RTT would
     * hold no delivery sample and the estimate would read 0.
     */
    private static final long MIN_ROUND_NANOS = 1_000_000;
    /** The most lateness an engine stall leaves to make up at once, whatever the round. */
    static final long MAX_STALL_CREDIT_NANOS = 50_000_000;
    /** The least rate is this many of the largest packets per round. */
    static final int MIN_PACKETS_PER_ROUND = 4;
    private final Config c;
    private final Pacer pacer;
    private final long floorBps;
    private final long[] roundMax = new long[BW_ROUNDS];
    private int slot;
    private State state;
    private long minRtt = Long.MAX_VALUE;
    private long minRttStamp;
    private long roundStart = Long.MIN_VALUE;
    private long rounds;
    private long sampleStart = Long.MIN_VALUE;
    private long sampleBytes;
    /** Payload bytes sent and acknowledged so far, and sent when the delivery sample began. */
    private long sentTotal, deliveredTotal, sentAtSampleStart;
    /** Payload bytes sent in the round so far and in the last one. */
    private long sentThisRound, sentLastRound;
    private int largestPacket;
    private int sampleAcks;
    private long fullBw;
    private int fullBwRounds;
    private int drainRounds;
    private int phase;
    private long probeRttUntil;
    private long probeRttMin;
    private long lastLossCut = Long.MIN_VALUE;
    /** Bytes delivered at the last loss cut, and how many more end its round (the BDP then). */
    private long deliveredAtCut, cutRoundBytes;
    private long lossCuts;
    /** EWMA of the receiver's loss reports: one report's sampling noise must not look like congestion. */
    private double lossEwma;

    public Rrcc(Config config) {
        this.c = config;
        this.floorBps = Math.round(config.refBps * config.floor);
        if (config.refBps > 0) {
            state = State.PROBE_BW;
            phase = 2; // cruise at ref first; probe on the next cycle
            roundMax[0] = config.refBps;
            pacer = new Pacer(capped(config.refBps), Pacer.CREDIT_BYTES);
        } else {
            state = State.STARTUP;
            pacer = new Pacer(capped(config.initBps), Pacer.CREDIT_BYTES);
        }
    }

    static Factory factory(Config config) {
        return Factory.of("rrcc", () -> new Rrcc(config));
    }

    @Override
    public long nextSendTime(long now) {
        return pacer.nextAvail();
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        pacer.sent(payloadBytes, now);
        sentTotal += payloadBytes;
        sentThisRound += payloadBytes;
        if (payloadBytes > largestPacket) largestPacket = payloadBytes;
    }

    @Override
    public void onLinkHeld(long now) {
        pacer.held(now);
    }

    @Override
    public void onAck(long rttNanos, long now) {
        onAck(0, rttNanos, now);
    }

    /**
     * Lateness an engine stall may leave for the QP to make up at once: half a round of bytes at the rate (a bottleneck
     * buffer of a bandwidth-delay product takes it), at most {@link #MAX_STALL_CREDIT_NANOS}. A descheduled engine
     * thread on a shared core loses scheduler slices of milliseconds; with only {@link Pacer#CREDIT_BYTES} of them made
     * up, a sender beside two CPU hogs kept under half the rate.
     */
    @Override
    public void onEngineLate(long dueAt, long now) {
        long round = minRtt == Long.MAX_VALUE ? MIN_ROUND_NANOS : round();
        pacer.engineLate(now, Math.min(MAX_STALL_CREDIT_NANOS, round / 2));
    }

    @Override
    public void onAck(long ackedBytes, long rttNanos, long now) {
        deliveredTotal += ackedBytes;
        if (rttNanos > 0) rttSample(rttNanos, now);
        if (minRtt == Long.MAX_VALUE) return; // init until the first RTT sample starts the rounds
        deliverySample(ackedBytes, now);
        long round = round();
        if (now - roundStart >= 64 * round) roundStart = now - round; // idle for many rounds: one round ends, not each
        while (now - roundStart >= round) {
            roundStart += round;
            roundEnd(now);
        }
        if (state == State.PROBE_RTT && now >= probeRttUntil) {
            // the probe's smallest sample is the new min RTT, even if the path got longer
            if (probeRttMin != Long.MAX_VALUE) minRtt = probeRttMin;
            minRttStamp = now;
            enterProbeBw(2);
        } else if (state != State.PROBE_RTT && now - minRttStamp > c.probeRttIntervalNanos) {
            state = State.PROBE_RTT;
            probeRttUntil = now + Math.max(c.probeRttTimeNanos, minRtt);
            probeRttMin = Long.MAX_VALUE;
        }
        pace();
    }

    private void rttSample(long rtt, long now) {
        if (minRtt == Long.MAX_VALUE) {
            minRtt = rtt;
            minRttStamp = now;
            roundStart = now;
            return;
        }
        if (state == State.PROBE_RTT) probeRttMin = Math.min(probeRttMin, rtt);
        if (rtt <= minRtt) {
            minRtt = rtt;
            minRttStamp = now;
        }
        if (state == State.DRAIN && rtt <= minRtt * 5 / 4) enterProbeBw(2);
    }

    private void deliverySample(long bytes, long now) {
        if (sampleStart == Long.MIN_VALUE) {
            sampleStart = now;
            sentAtSampleStart = sentTotal;
            return;
        }
        sampleBytes += bytes;
        sampleAcks++;
        long elapsed = now - sampleStart;
        if (elapsed >= round() / 4 && sampleAcks >= MIN_SAMPLE_ACKS && elapsed > 0) {
            // no faster than we sent meanwhile: ACKs held up on the way (a switch or receiver that stalled) arrive in a
            // burst, and their rate, taken for the bottleneck's, paced the QP far above it for the next 10 rounds. The
            // sample's own interval too: a probe's ACKs come within its round on a short path, when the round's sends
            // are not all counted yet, and a cap from the rounds alone held every probe to the rate before it
            long bps = Math.min((long) (sampleBytes * 8e9 / elapsed),
                    Math.max(sendRateBps(), (long) ((sentTotal - sentAtSampleStart) * 8e9 / elapsed)));
            if (bps > roundMax[slot]) roundMax[slot] = bps;
            sampleStart = now;
            sentAtSampleStart = sentTotal;
            sampleBytes = 0;
            sampleAcks = 0;
        }
    }

    /** The most we sent per round in this round and the last, as a rate (what a round of ACKs can answer at most). */
    private long sendRateBps() {
        return (long) (Math.max(sentLastRound, sentThisRound) * 8e9 / round());
    }

    private void roundEnd(long now) {
        rounds++;
        sentLastRound = sentThisRound;
        sentThisRound = 0;
        long bw = bottleneckBps();
        slot = (slot + 1) % BW_ROUNDS;
        roundMax[slot] = 0;
        switch (state) {
            case STARTUP -> {
                if (bw >= fullBw * 5 / 4) {
                    fullBw = bw;
                    fullBwRounds = 0;
                } else if (++fullBwRounds >= 3) {
                    state = State.DRAIN;
                    drainRounds = 0;
                }
            }
            case DRAIN -> {
                if (++drainRounds >= MAX_DRAIN_ROUNDS) enterProbeBw(2);
            }
            case PROBE_BW -> phase = (phase + 1) % CYCLE.length;
            default -> { }
        }
    }

    private void enterProbeBw(int startPhase) {
        state = State.PROBE_BW;
        phase = startPhase;
    }

    @Override
    public void onLossRate(double fraction, long now) {
        double f = Math.min(Math.max(fraction, 0), 1);
        lossEwma += LOSS_GAIN * (f - lossEwma);
        if (lossEwma <= c.lossThreshold || state == State.STARTUP) return;
        if (lastLossCut != Long.MIN_VALUE && !roundSinceCut(now)) return;
        long before = bottleneckBps();
        lastLossCut = now;
        deliveredAtCut = deliveredTotal;
        cutRoundBytes = Math.max((long) (before / 8e9 * round()), (long) MIN_PACKETS_PER_ROUND * largestPacket);
        lossCuts++;
        long cut = Math.max(floorBps, Math.round(before * (1 - lossEwma)));
        Arrays.fill(roundMax, 0);
        roundMax[slot] = cut;
        pace();
    }

    private long round() {
        return Math.max(minRtt, MIN_ROUND_NANOS);
    }

    /** A round has passed since the last loss cut: its time, and the bytes then in flight delivered since. */
    private boolean roundSinceCut(long now) {
        long time = minRtt == Long.MAX_VALUE ? MIN_ROUND_NANOS : round();
        return now - lastLossCut >= time && deliveredTotal - deliveredAtCut >= cutRoundBytes;
    }

    /** The least pacing rate: {@link #MIN_PACKETS_PER_ROUND} of the largest packets per round (1 bit/s before any). */
    private long leastBps() {
        long round = minRtt == Long.MAX_VALUE ? MIN_ROUND_NANOS : round();
        return Math.max(1, (long) (MIN_PACKETS_PER_ROUND * largestPacket * 8e9 / round));
    }

    private void pace() {
        long bw = bottleneckBps();
        // no delivery sample in the window (ACKs paused): keep the rate rather than pace at ~0, which would push the
        // next send time beyond any later rate change
        if (bw == 0 && state != State.STARTUP) return;
        double gain = switch (state) {
            case STARTUP -> STARTUP_GAIN;
            case DRAIN -> DRAIN_GAIN;
            case PROBE_BW -> CYCLE[phase];
            case PROBE_RTT -> c.probeRttGain;
        };
        // startup doubles from init as soon as the first RTT sample starts the rounds
        long rate = state == State.STARTUP
                ? Math.round(gain * Math.max(bw, c.initBps)) : Math.round(gain * bw);
        // the floor holds the estimate (bw), not probe-bandwidth's drain phase: clamping 0.75 x bw up to it made a
        // cycle average 1.03 x the floor, so a reference rate at the bottleneck queued without end (PFC, drops)
        long min = state == State.PROBE_BW ? 1 : floorBps;
        pacer.rate(capped(Math.max(rate, Math.max(min, leastBps()))));
    }

    /** The cap wins over every other bound: it is the user's limit on what the QP may take of the path. */
    private long capped(long bps) {
        return c.maxBps > 0 ? Math.min(bps, c.maxBps) : bps;
    }

    /** The bottleneck bandwidth estimate: the max delivery rate of the last 10 rounds, at least the floor. */
    public long bottleneckBps() {
        long m = 0;
        for (long v : roundMax) m = Math.max(m, v);
        return Math.max(m, floorBps);
    }

    /** The pacing rate now, payload bit/s. */
    public long rateBps() {
        return pacer.rate();
    }

    public State state() {
        return state;
    }

    /** Min RTT in ns (Long.MAX_VALUE before the first sample). */
    public long minRttNanos() {
        return minRtt;
    }

    public long rounds() {
        return rounds;
    }

    public long lossCuts() {
        return lossCuts;
    }

    @Override
    public String name() {
        return "rrcc";
    }
}
