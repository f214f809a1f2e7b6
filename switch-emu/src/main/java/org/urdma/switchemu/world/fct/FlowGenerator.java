package org.urdma.switchemu.world.fct;

import java.util.SplittableRandom;

/**
 * The flows of a load: every host opens flows to uniformly chosen other hosts with Poisson arrivals (exponential
 * gaps of mean {@code mean size × 8 / (rate × load)}), sizes from a {@link FlowSizeCdf}, for {@code durationNs} from
 * {@code startNs}, as HPCC's {@code traffic_gen.py} does (dport 100); and optionally an incast process taking
 * {@code incastShare} of that load: at Poisson times a random receiver and {@code incastSenders} distinct random
 * senders, each sending {@code incastBytes} at the same instant (dport 200, as the HPCC paper's incast flows). All
 * draws come from {@code seed}.
 */
public final class FlowGenerator {
    /** The flows' PFC class (HPCC's flow files use 3). */
    public static final int PRIORITY = 3;
    public static final int DPORT = 100;
    public static final int INCAST_DPORT = 200;

    /** Load {@code load} (0..1 of each host's link) of {@code cdf} flows, plus an incast process if {@code incastSenders} > 0. */
    public record Options(FlowSizeCdf cdf, double load, long hostRateBps, long startNs, long durationNs, int incastSenders,
                          long incastBytes, double incastShare, long seed) {
        public Options {
            if (!(load > 0 && load <= 1)) throw new IllegalArgumentException("load: must be in (0, 1], was " + load);
            if (hostRateBps <= 0) throw new IllegalArgumentException("rate: must be > 0");
            if (durationNs <= 0) throw new IllegalArgumentException("duration: must be > 0, was " + durationNs + " ns");
            if (startNs < 0) throw new IllegalArgumentException("start: must be >= 0");
            if (incastSenders < 0) throw new IllegalArgumentException("incast: senders must be >= 0");
            if (incastSenders > 0 && (incastBytes < 1 || !(incastShare > 0 && incastShare < 1))) {
                throw new IllegalArgumentException("incast: size must be >= 1 byte and the share of load in (0, 1)");
            }
        }
    }

    private FlowGenerator() {
    }

    public static Flows generate(Options o, int hosts) {
        if (hosts < 2) throw new IllegalArgumentException("hosts: flows need at least 2 hosts, the topology has " + hosts);
        if (o.incastSenders >= hosts) {
            throw new IllegalArgumentException("incast: " + o.incastSenders + " senders need at least " + (o.incastSenders + 1) + " hosts");
        }
        SplittableRandom root = new SplittableRandom(o.seed);
        Flows f = new Flows();
        double background = o.incastSenders > 0 ? 1 - o.incastShare : 1;
        double gapNs = o.cdf.mean() * 8 / (o.hostRateBps * o.load * background) * 1e9;
        long end = o.startNs + o.durationNs;
        for (int h = 0; h < hosts; h++) {
            SplittableRandom r = root.split(); // one stream per host: adding a host moves no other host's flows
            double t = o.startNs + exponential(r, gapNs);
            while (t < end) {
                int d = r.nextInt(hosts - 1);
                f.add(h, d >= h ? d + 1 : d, PRIORITY, DPORT, o.cdf.draw(r), (long) t);
                t += exponential(r, gapNs);
            }
        }
        if (o.incastSenders > 0) {
            SplittableRandom r = root.split();
            // incast bytes per second: share x load x all hosts' capacity; each event moves senders x size
            double eventGapNs = o.incastSenders * (double) o.incastBytes * 8
                    / (o.incastShare * o.load * o.hostRateBps * hosts) * 1e9;
            int[] pick = new int[hosts];
            for (double t = o.startNs + exponential(r, eventGapNs); t < end; t += exponential(r, eventGapNs)) {
                int receiver = r.nextInt(hosts);
                for (int i = 0; i < hosts; i++) pick[i] = i;
                pick[receiver] = pick[hosts - 1];
                for (int k = 0; k < o.incastSenders; k++) { // partial Fisher-Yates over the other hosts
                    int j = k + r.nextInt(hosts - 1 - k);
                    int s = pick[j];
                    pick[j] = pick[k];
                    pick[k] = s;
                    f.add(s, receiver, PRIORITY, INCAST_DPORT, o.incastBytes, (long) t);
                }
            }
        }
        return f.sorted();
    }

    private static double exponential(SplittableRandom r, double mean) {
        return -Math.log(1 - r.nextDouble()) * mean;
    }
}
