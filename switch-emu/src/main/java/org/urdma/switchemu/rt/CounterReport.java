package org.urdma.switchemu.rt;

import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.transport.impair.Impairment;

import java.util.Locale;

/** Per-port counters of a real-time switch as text (printed by {@code urdma switch} on exit). */
public final class CounterReport {
    private CounterReport() {
    }

    public static String format(RtSwitch sw, String impairmentNote) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "switch %s: %d ports, ran %.3f s, impairment: %s%n", sw.name(), sw.portCount(),
            sw.runNanos() / 1e9, impairmentNote));
        for (int i = 0; i < sw.portCount(); i++) {
            RtPort p = sw.port(i);
            PortCounters c = sw.core().counters(i);
            appendPort(sb, i, p.name(), p.peer() == null ? "?" : p.peer(), c, sw.runNanos());
            String io = p.io().describeCounters();
            sb.append(String.format(Locale.ROOT, "  driver: tx-refused %d, delay-full %d%s%n", p.txRefused(), p.delayFull(),
                io.isEmpty() ? "" : "; " + io));
            if (p.ingressImpairment() != null || p.egressImpairment() != null) {
                appendImpairment(sb, p.ingressImpairment(), p.egressImpairment());
                sb.append(String.format(Locale.ROOT, "  delayed frames %d, released late by %.1f us mean, %.1f us max%n",
                    p.delayedFrames(), p.meanReleaseLatenessNs() / 1e3, p.maxReleaseLatenessNs() / 1e3));
            }
        }
        return sb.toString();
    }

    /**
     * A port's switch counters (frames, bytes, drops by reason, PFC, ECN, queue high-water, watchdog), in the layout
     * every switch report uses: the real-time switch's and the in-process run's. PFC frames per second are
     * averaged over {@code elapsedNs} (the run's time; 0 = not shown).
     */
    public static void appendPort(StringBuilder sb, int i, String name, String peer, PortCounters c, long elapsedNs) {
        sb.append(String.format(Locale.ROOT, "port %d %s -> %s: rx %d frames %d B, tx %d frames %d B%n", i,
            name, peer, c.rxFrames, c.rxBytes, c.txFrames, c.txBytes));
        sb.append("  drops:");
        long total = 0;
        for (DropReason r : DropReason.values()) {
            long d = c.drops(r);
            if (d != 0) {
                sb.append(' ').append(r.name().toLowerCase(Locale.ROOT)).append('=').append(d);
                total += d;
            }
        }
        sb.append(total == 0 ? " 0" : "").append('\n');
        sb.append("  pfc tx (of which xon):").append(perPriority(c.pfcTx, c.pfcXonTx))
            .append("  pfc rx:").append(perPriority(c.pfcRx, null))
            .append("  pause rx: ").append(c.pauseRx).append('\n');
        if (c.pfcFramesTx != 0) {
            sb.append("  pfc frames tx: ").append(c.pfcFramesTx);
            if (elapsedNs > 0) {
                sb.append(String.format(Locale.ROOT, " (%.0f/s)", c.pfcFramesTx / (elapsedNs / 1e9)));
            }
            sb.append('\n');
        }
        sb.append("  ecn marked: ").append(c.ecnMarked).append("  queue high-water B:")
            .append(perPriority(c.queueHighWater, null)).append('\n');
        if (nonZero(c.watchdogStorms) || nonZero(c.watchdogRestores)) {
            sb.append("  watchdog storms:").append(perPriority(c.watchdogStorms, null)).append("  restores:")
                .append(perPriority(c.watchdogRestores, null)).append('\n');
        }
    }

    /** What a port's ingress and egress impairment stages did. */
    public static void appendImpairment(StringBuilder sb, Impairment in, Impairment out) {
        sb.append("  impairment in: ").append(impairment(in)).append("; out: ").append(impairment(out)).append('\n');
    }

    private static String impairment(Impairment imp) {
        if (imp == null) {
            return "none";
        }
        return "offered " + imp.offered() + " lost " + imp.lost() + " duplicated " + imp.duplicated() + " reordered "
            + imp.reordered() + " corrupted " + imp.corrupted();
    }

    private static boolean nonZero(long[] values) {
        for (long v : values) {
            if (v != 0) {
                return true;
            }
        }
        return false;
    }

    private static String perPriority(long[] values, long[] sub) {
        StringBuilder sb = new StringBuilder();
        for (int p = 0; p < values.length; p++) {
            if (values[p] != 0) {
                sb.append(' ').append(p).append(':').append(values[p]);
                if (sub != null) {
                    sb.append('(').append(sub[p]).append(')');
                }
            }
        }
        return sb.length() == 0 ? " -" : sb.toString();
    }
}
