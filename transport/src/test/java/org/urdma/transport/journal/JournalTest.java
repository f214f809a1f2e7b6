package org.urdma.transport.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.wire.Aeth;
import org.urdma.verbs.QpState;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class JournalTest {
    @TempDir
    Path dir;

    @Test
    void eventsRoundTripThroughRingAgentQueueAndReaderWithFilters() {
        Path q = dir.resolve("j" + Journal.SUFFIX);
        try (Journal journal = Journal.open(q, 1 << 16); EngineCounters counters = EngineCounters.inMemory("dev0")) {
            EventJournal d0 = journal.device("dev0", counters);
            EventJournal d1 = journal.device("dev1", (org.agrona.concurrent.status.AtomicCounter) null);
            d0.qpState(100, 17, QpState.RTR, QpState.RTS);
            d0.retransmit(200, 17, 1000, 5, RetransmitReason.NAK);
            d0.nakReceived(300, 17, 1000, Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR));
            d1.nakSent(310, 33, 1000, Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR));
            d1.rnrNakSent(320, 33, 7, Aeth.rnrNak(1));
            d0.rnrNakReceived(330, 17, 7, Aeth.rnrNak(1));
            d1.cnpSent(400, 33, 9);
            d0.cnpReceived(410, 17, 9);
            d0.cnpMerged(420, 17, 9);
            d0.pause(500, 3, 0xFFFF, true);
            d0.pause(510, -1, 0, false);
            d1.drop(600, -1, Counter.DROP_BAD_ICRC, 44);
            d0.retransmit(700, 18, 2000, 1, RetransmitReason.TIMEOUT);
            assertTrue(journal.agent().doWork() > 0);

            try (JournalReader r = JournalReader.open(q)) {
                List<JournalEvent> all = read(r, JournalReader.Filter.ALL);
                assertEquals(13, all.size());
                assertEquals(List.of(EventType.QP_STATE, EventType.RETRANSMIT, EventType.NAK_RCVD, EventType.NAK_SENT,
                    EventType.RNR_NAK_SENT, EventType.RNR_NAK_RCVD, EventType.CNP_SENT, EventType.CNP_RCVD,
                    EventType.CNP_MERGED, EventType.PAUSE_ON, EventType.PAUSE_OFF, EventType.DROP, EventType.RETRANSMIT),
                    all.stream().map(JournalEvent::type).toList());
                JournalEvent rt = all.get(1);
                assertEquals(200, rt.timeNs());
                assertEquals("dev0", rt.device());
                assertEquals(17, rt.qpn());
                String line = rt.format(ZoneOffset.UTC);
                assertTrue(line.endsWith(" t=200 dev0 qp 17 RETRANSMIT first_psn=1000 count=5 reason=NAK"), line);
                assertTrue(all.get(0).format(ZoneOffset.UTC).endsWith("QP_STATE from=RTR to=RTS"));
                assertTrue(all.get(3).fields().equals("psn=1000 syndrome=0x60 (psn sequence error)"), all.get(3).fields());
                assertTrue(all.get(4).fields().equals("psn=7 syndrome=0x21 (rnr timer 10 us)"), all.get(4).fields());
                assertEquals("prio=3 quanta=65535", all.get(9).fields());
                assertEquals("prio=all quanta=0", all.get(10).fields());
                assertTrue(all.get(11).format(ZoneOffset.UTC).endsWith("dev1 qp - DROP reason=drop_bad_icrc psn=44"));
                assertTrue(all.stream().allMatch(e -> e.epochNs() > 0), "stamped with the drain's wall clock");
            }
            try (JournalReader r = JournalReader.open(q)) {
                assertEquals(List.of(200L, 700L), read(r, new JournalReader.Filter(null, null,
                    EnumSet.of(EventType.RETRANSMIT), Long.MIN_VALUE)).stream().map(JournalEvent::timeNs).toList());
            }
            try (JournalReader r = JournalReader.open(q)) {
                assertEquals(4, read(r, new JournalReader.Filter("dev1", null, null, Long.MIN_VALUE)).size());
            }
            try (JournalReader r = JournalReader.open(q)) {
                List<JournalEvent> qp17 = read(r, new JournalReader.Filter(null, 17, Set.of(), Long.MIN_VALUE));
                assertEquals(6, qp17.size());
                assertTrue(qp17.stream().allMatch(e -> e.qpn() == 17));
                assertEquals(0, read(r, JournalReader.Filter.ALL).size(), "nothing new yet");
                d0.qpState(800, 17, QpState.RTS, QpState.ERR);
                journal.agent().doWork();
                List<JournalEvent> later = read(r, JournalReader.Filter.ALL);
                assertEquals(1, later.size(), "a follower sees only what was written since");
                assertEquals(800, later.get(0).timeNs());
                long future = later.get(0).epochNs() + 1;
                try (JournalReader r2 = JournalReader.open(q)) {
                    assertEquals(0, read(r2, new JournalReader.Filter(null, null, null, future)).size(), "--since");
                }
            }
            assertEquals(0, d0.lost() + d1.lost());
        }
    }

    @Test
    void aTinyRingUnderABurstCountsLostEventsInsteadOfBlocking() {
        Path q = dir.resolve("tiny" + Journal.SUFFIX);
        try (Journal journal = Journal.open(q, 1024); EngineCounters counters = EngineCounters.inMemory("dev0")) {
            EventJournal d = journal.device("dev0", counters);
            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                d.retransmit(i, 5, i, 1, RetransmitReason.TIMEOUT);
            }
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "the burst never waits for the agent");
            long lost = d.lost();
            assertTrue(lost > 9_000, "most of a burst into 1 KiB is lost: " + lost);
            assertEquals(lost, counters.get(Counter.JOURNAL_EVENTS_LOST), "the device counter has the lost events");
            journal.agent().doWork();
            assertEquals(10_000 - lost, journal.agent().drained());
            try (JournalReader r = JournalReader.open(q)) {
                List<JournalEvent> only = read(r, new JournalReader.Filter(null, 99, EnumSet.of(EventType.QP_STATE), Long.MIN_VALUE));
                assertEquals(1, only.size(), "LOST passes the qp and type filters");
                assertEquals(EventType.LOST, only.get(0).type());
                assertEquals(lost, only.get(0).a());
            }
        }
    }

    @Test
    void aStartedAgentDrainsEverythingBeforeClose() {
        Path q = dir.resolve("bg" + Journal.SUFFIX);
        Journal journal = Journal.open(q).start();
        EventJournal d = journal.device("dev0", (org.agrona.concurrent.status.AtomicCounter) null);
        for (int i = 0; i < 5_000; i++) {
            d.cnpSent(i, 1, i);
        }
        journal.close();
        try (JournalReader r = JournalReader.open(q)) {
            assertEquals(5_000 - d.lost(), read(r, JournalReader.Filter.ALL).size());
        }
    }

    @Test
    void noneJournalsNothing() {
        assertFalse(EventJournal.NONE.enabled());
        EventJournal.NONE.retransmit(1, 2, 3, 4, RetransmitReason.SACK);
        EventJournal.NONE.drop(1, 2, Counter.DROP_QKEY, 3);
        assertEquals(0, EventJournal.NONE.lost());
    }

    @Test
    void theWritePathAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "needs com.sun.management.ThreadMXBean");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation accounting unsupported");
        try (Journal journal = Journal.open(dir.resolve("alloc" + Journal.SUFFIX), 1 << 16)) {
            EventJournal d = journal.device("dev0", (org.agrona.concurrent.status.AtomicCounter) null);
            for (int i = 0; i < 20; i++) {
                write(d, 2_000); // warm up (JIT), accepted and lost paths both
                journal.agent().doWork();
            }
            long allocated = Long.MAX_VALUE;
            long bestNs = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                journal.agent().doWork(); // the agent's own work is not the engine's: outside the measurement
                long before = threads.getCurrentThreadAllocatedBytes();
                long t0 = System.nanoTime();
                write(d, 1_000); // 11 000 events into a ring with room for ~1600: mostly the lost path
                long t1 = System.nanoTime();
                allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
                journal.agent().doWork();
                write(d, 100); // 1 100 events: all accepted
                bestNs = Math.min(bestNs, System.nanoTime() - t1);
            }
            assertEquals(0, allocated, "bytes allocated by event writes in the quietest pass");
            assertTrue(d.lost() > 0, "the lost path ran");
            System.out.printf("journal write: %.1f ns/event accepted (ring 64 KiB)%n", bestNs / (100 * 11.0));
        }
    }

    private static void write(EventJournal d, int rounds) {
        for (int i = 0; i < rounds; i++) {
            d.qpState(i, 1, QpState.RTS, QpState.ERR);
            d.retransmit(i, 1, i, 3, RetransmitReason.NAK);
            d.nakSent(i, 1, i, 0x60);
            d.nakReceived(i, 1, i, 0x60);
            d.rnrNakSent(i, 1, i, 0x21);
            d.rnrNakReceived(i, 1, i, 0x21);
            d.cnpSent(i, 1, i);
            d.cnpReceived(i, 1, i);
            d.cnpMerged(i, 1, i);
            d.pause(i, i & 7, 100, (i & 1) == 0);
            d.drop(i, 1, Counter.DROP_WRONG_STATE, i);
        }
    }

    private static List<JournalEvent> read(JournalReader r, JournalReader.Filter f) {
        List<JournalEvent> out = new ArrayList<>();
        r.poll(f, out::add);
        return out;
    }
}
