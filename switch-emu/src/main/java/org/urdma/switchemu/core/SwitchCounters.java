package org.urdma.switchemu.core;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import java.util.ArrayList;
import java.util.List;

/**
 * Publishes a switch's {@link PortCounters} as Agrona counters (e.g. in the memory-mapped counters file
 * that {@code urdma stat} reads, like AeronStat). Labels read "SWITCH pPORT NAME"; the driver calls
 * {@link #publish()} from its own thread now and then (it copies plain fields; no allocation).
 */
public final class SwitchCounters implements AutoCloseable {
    /** Agrona type id of every switch counter. */
    public static final int TYPE_ID = 5001;

    private final SwitchCore core;
    private final List<AtomicCounter> counters = new ArrayList<>();
    private final AtomicCounter[][] scalar;
    private final AtomicCounter[][] drops;
    private final AtomicCounter[][][] perPriority;
    private static final String[] SCALARS = {"rx-frames", "rx-bytes", "tx-frames", "tx-bytes", "pause-rx", "ecn-marked",
        "pfc-frames-tx"};
    private static final String[] PER_PRIORITY = {"pfc-tx", "pfc-xon-tx", "pfc-rx", "queue-high-water", "watchdog-storms",
        "watchdog-restores"};

    public SwitchCounters(String switchName, SwitchCore core, CountersManager manager) {
        this.core = core;
        int ports = core.portCount();
        scalar = new AtomicCounter[ports][SCALARS.length];
        drops = new AtomicCounter[ports][DropReason.VALUES.length];
        perPriority = new AtomicCounter[ports][PER_PRIORITY.length][8];
        for (int p = 0; p < ports; p++) {
            String prefix = switchName + " p" + p + " ";
            for (int i = 0; i < SCALARS.length; i++) {
                scalar[p][i] = add(manager, prefix + SCALARS[i]);
            }
            for (DropReason r : DropReason.VALUES) {
                drops[p][r.ordinal()] = add(manager, prefix + "drop-" + r.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            }
            for (int i = 0; i < PER_PRIORITY.length; i++) {
                for (int q = 0; q < 8; q++) {
                    perPriority[p][i][q] = add(manager, prefix + PER_PRIORITY[i] + " prio " + q);
                }
            }
        }
    }

    private AtomicCounter add(CountersManager manager, String label) {
        AtomicCounter c = manager.newCounter(label, TYPE_ID);
        counters.add(c);
        return c;
    }

    public void publish() {
        for (int p = 0; p < scalar.length; p++) {
            PortCounters c = core.counters(p);
            AtomicCounter[] s = scalar[p];
            s[0].setRelease(c.rxFrames);
            s[1].setRelease(c.rxBytes);
            s[2].setRelease(c.txFrames);
            s[3].setRelease(c.txBytes);
            s[4].setRelease(c.pauseRx);
            s[5].setRelease(c.ecnMarked);
            s[6].setRelease(c.pfcFramesTx);
            for (int r = 0; r < drops[p].length; r++) {
                drops[p][r].setRelease(c.drops[r]);
            }
            AtomicCounter[][] pp = perPriority[p];
            set(pp[0], c.pfcTx);
            set(pp[1], c.pfcXonTx);
            set(pp[2], c.pfcRx);
            set(pp[3], c.queueHighWater);
            set(pp[4], c.watchdogStorms);
            set(pp[5], c.watchdogRestores);
        }
    }

    private static void set(AtomicCounter[] counters, long[] values) {
        for (int q = 0; q < 8; q++) {
            counters[q].setRelease(values[q]);
        }
    }

    @Override
    public void close() {
        for (AtomicCounter c : counters) {
            c.close();
        }
    }
}
