package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.journal.EventType;
import org.urdma.transport.journal.Journal;
import org.urdma.transport.journal.JournalEvent;
import org.urdma.transport.journal.JournalReader;
import org.urdma.transport.journal.RetransmitReason;
import org.urdma.transport.recovery.LossCause;

/** Resent packets become RETRANSMIT events in runs of consecutive PSNs, one reason per run. */
class ResendJournalTest {
    @TempDir
    Path dir;

    @Test
    void consecutiveResendsAreOneEventAndAGapAMultiPsnPacketOrANewReasonEndsTheRun() {
        Path q = dir.resolve("resend" + Journal.SUFFIX);
        try (Journal journal = Journal.open(q).start()) {
            try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), new MemoryFabric.Telemetry() {
                public EngineCounters counters(DeviceConfig c) {
                    return EngineCounters.inMemory(c.name());
                }

                public EventJournal journal(DeviceConfig c, EngineCounters counters) {
                    return journal.device(c.name(), counters);
                }
            })) {
                SoftQp a = (SoftQp) r.rc()[0];
                ResendJournal j = new ResendJournal(a);
                j.reason(LossCause.NAK);
                j.resent(10, 1);
                j.resent(11, 1);
                j.resent(12, 1);       // 10..12: one run
                j.resent(20, 1);       // a gap: 20 starts a new run
                j.resent(21, 3);       // a READ request for 3 PSNs ends the run it joins
                j.reason(LossCause.SACK);
                j.resent(30, 1);
                j.reason(LossCause.SACK); // the same reason: the run goes on
                j.resent(31, 1);
                j.flush(r.sim.now());
                j.flush(r.sim.now());  // nothing left: no event
                assertEquals(7, a.counters().get(Counter.RETRANSMITTED_PKTS));
                assertEquals(2, a.counters().get(Counter.SACK_RESENT_PKTS));
                assertEquals(RetransmitReason.SACK, j.reason());
                j.afterRnr();
                assertEquals(RetransmitReason.RNR, j.reason());
            }
        }
        List<int[]> runs = new ArrayList<>();
        try (JournalReader reader = JournalReader.open(q)) {
            List<JournalEvent> ev = new ArrayList<>();
            while (reader.poll(JournalReader.Filter.ALL, ev::add) > 0) {
                // read all
            }
            for (JournalEvent e : ev) if (e.type() == EventType.RETRANSMIT) runs.add(new int[] {e.a(), e.b(), e.c()});
        }
        int nak = RetransmitReason.NAK.ordinal(), sack = RetransmitReason.SACK.ordinal();
        assertEquals(3, runs.size(), "three runs");
        assertArrayEquals(new int[] {10, 3, nak}, runs.get(0));
        assertArrayEquals(new int[] {20, 2, nak}, runs.get(1));
        assertArrayEquals(new int[] {30, 2, sack}, runs.get(2));
    }
}
