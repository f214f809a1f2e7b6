package org.urdma.switchemu.world.fct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowGeneratorTest {
    private static final long RATE = 100_000_000_000L;
    private static final int HOSTS = 16;

    /** Kolmogorov-Smirnov: the critical distance at level 0.01 is 1.628 / sqrt(n). */
    private static double ksCritical(int n) {
        return 1.628 / Math.sqrt(n);
    }

    private static Flows generate(FlowSizeCdf cdf, double load, int flows, int incast, long incastBytes, double share) {
        long durationNs = (long) (flows * cdf.mean() * 8 / (HOSTS * RATE * load) * 1e9);
        return FlowGenerator.generate(new FlowGenerator.Options(cdf, load, RATE, 2_000_000_000L, durationNs, incast, incastBytes,
                share, 42), HOSTS);
    }

    @Test
    void generatedSizesFollowTheCdfByKolmogorovSmirnovAtOnePercent() {
        for (String name : FlowSizeCdf.SHIPPED) {
            FlowSizeCdf cdf = FlowSizeCdf.shipped(name);
            Flows f = generate(cdf, 0.3, 100_000, 0, 0, 0);
            int n = f.count();
            double[] s = new double[n];
            for (int i = 0; i < n; i++) s[i] = f.size(i);
            Arrays.sort(s);
            double d = 0;
            for (int i = 0; i < n; i++) {
                // sizes are whole bytes (truncated): P(size <= x) is the CDF at x + 1
                double f1 = cdf.cdf(s[i] + 1);
                d = Math.max(d, Math.max(Math.abs((i + 1.0) / n - f1), Math.abs(i / (double) n - cdf.cdf(s[i]))));
            }
            assertTrue(d < ksCritical(n), name + ": KS distance " + d + " over " + n + " flows, critical " + ksCritical(n));
        }
    }

    @Test
    void generatedArrivalsOfferTheRequestedLoadAsAPoissonProcess() {
        FlowSizeCdf cdf = FlowSizeCdf.shipped("websearch");
        Flows f = generate(cdf, 0.3, 100_000, 0, 0, 0);
        long first = Long.MAX_VALUE;
        long last = 0;
        for (int i = 0; i < f.count(); i++) {
            first = Math.min(first, f.startNs(i));
            last = Math.max(last, f.startNs(i));
        }
        double durationNs = 100_000 * cdf.mean() * 8 / (HOSTS * RATE * 0.3) * 1e9;
        double load = f.bytes() * 8 / (HOSTS * RATE * (durationNs / 1e9));
        // 100 000 web-search flows: the mean size's relative standard error is about 0.8 %, so 4 % is 5 sigma
        assertEquals(0.3, load, 0.3 * 0.04, "offered load");
        assertTrue(Math.abs(f.count() - 100_000) < 4 * Math.sqrt(100_000), "flow count " + f.count());
        // per host, gaps are exponential with mean (mean size x 8 / (rate x load)): KS at 1 %
        double mean = cdf.mean() * 8 / (RATE * 0.3) * 1e9;
        long[] lastStart = new long[HOSTS];
        Arrays.fill(lastStart, 2_000_000_000L);
        double[] gaps = new double[f.count()];
        for (int i = 0; i < f.count(); i++) {
            gaps[i] = f.startNs(i) - lastStart[f.src(i)];
            lastStart[f.src(i)] = f.startNs(i);
        }
        Arrays.sort(gaps);
        double d = 0;
        for (int i = 0; i < gaps.length; i++) {
            double c = 1 - Math.exp(-gaps[i] / mean);
            d = Math.max(d, Math.max(Math.abs((i + 1.0) / gaps.length - c), Math.abs(i / (double) gaps.length - c)));
        }
        assertTrue(d < ksCritical(gaps.length), "gaps: KS distance " + d + ", critical " + ksCritical(gaps.length));
        for (int i = 0; i < f.count(); i++) assertTrue(f.src(i) != f.dst(i) && f.dport(i) == FlowGenerator.DPORT);
    }

    @Test
    void theIncastProcessTakesItsShareOfTheLoadInNToOneBursts() {
        FlowSizeCdf cdf = FlowSizeCdf.shipped("websearch");
        Flows f = generate(cdf, 0.5, 100_000, 8, 64_000, 0.2);
        long incast = 0;
        long events = 0;
        long lastT = -1;
        int lastDst = -1;
        for (int i = 0; i < f.count(); i++) {
            if (f.dport(i) != FlowGenerator.INCAST_DPORT) continue;
            assertEquals(64_000, f.size(i));
            incast += f.size(i);
            if (f.startNs(i) != lastT || f.dst(i) != lastDst) events++;
            lastT = f.startNs(i);
            lastDst = f.dst(i);
        }
        assertEquals(incast, events * 8 * 64_000, "every incast event is 8 flows of 64 KB");
        double share = incast / (double) f.bytes();
        assertEquals(0.2, share, 0.02, "incast share of the bytes");
    }

    @Test
    void theSameOptionsAndSeedGiveTheSameFlowsAndTheFlowFileRoundTrips() {
        FlowSizeCdf cdf = FlowSizeCdf.shipped("fb_hadoop");
        HostNumbers hosts = new HostNumbers(List.of("h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11", "h12",
                "h13", "h14", "h15"));
        String a = FlowFile.write(generate(cdf, 0.3, 2_000, 4, 10_000, 0.1), hosts);
        String b = FlowFile.write(generate(cdf, 0.3, 2_000, 4, 10_000, 0.1), hosts);
        assertEquals(a, b);
        assertEquals(a, FlowFile.write(FlowFile.read(a, "flow.txt", hosts), hosts));
    }

    @Test
    void aBadFlowLineIsRefusedNamingItsLine() {
        HostNumbers hosts = new HostNumbers(List.of("h0", "h1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> FlowFile.read("2\n0 1 3 100 1000 2.0\n0 5 3 100 1000 2.0\n", "flow.txt", hosts));
        assertTrue(e.getMessage().startsWith("flow.txt:3: ") && e.getMessage().contains("dst 5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> FlowSizeCdf.parse("0 0\n100 50\n90 100\n", "x.cdf"));
        assertTrue(e.getMessage().startsWith("x.cdf:3: "), e.getMessage());
    }
}
