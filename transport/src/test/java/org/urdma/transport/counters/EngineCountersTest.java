package org.urdma.transport.counters;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class EngineCountersTest {
    @TempDir
    Path dir;

    @Test
    void aReadOnlyMappingSeesDeviceAndQpCountersAsTheEngineWritesThem() {
        try (EngineCounters c = EngineCounters.open(dir, "dev0", 4)) {
            Path path = c.path();
            assertEquals("engine-dev0-" + ProcessHandle.current().pid() + ".counters", path.getFileName().toString());
            QpCounters qp = c.qp(17);
            qp.add(Counter.SENT_PKTS, 3);
            qp.add(Counter.SENT_BYTES, 3000);
            qp.increment(Counter.RETRANSMITTED_PKTS);
            c.increment(Counter.DROP_UNKNOWN_QP);
            c.add(Counter.PAUSE_TIME_NS, 3, 5_000);
            // another process's view: its own read-only mapping of the file
            try (CountersFile.Snapshot s = CountersFile.read(path)) {
                assertTrue(s.alive());
                assertTrue(EngineStatReport.isEngine(s.reader()));
                Map<String, Long> v = EngineStatReport.values(s.reader());
                assertEquals(3L, v.get("dev0 qp 17 sent_pkts"));
                assertEquals(3L, v.get("dev0 sent_pkts"), "a QP's add counts in the device total too");
                assertEquals(1L, v.get("dev0 qp 17 retransmitted_pkts"));
                assertEquals(1L, v.get("dev0 drop_unknown_qp"));
                assertEquals(5_000L, v.get("dev0 pause_time_ns prio 3"));
                assertEquals(5_000L, v.get("dev0 pause_time_ns"));
                assertNull(v.get("dev0 qp 17 drop_unknown_qp"), "device-scope counters have no QP rows");
                qp.add(Counter.SENT_PKTS, 2);
                Map<String, Long> later = EngineStatReport.values(s.reader());
                assertEquals(5L, later.get("dev0 qp 17 sent_pkts"), "live: the reader sees later writes");
                String text = EngineStatReport.format(s, null, later, v, 1_000_000_000L);
                assertTrue(text.contains("device dev0: sent 5 pkts 3000 B (2 pkts/s"), text);
                assertTrue(text.contains("drops: unknown_qp=1"), text);
                assertTrue(text.contains("  qp 17: sent 5 pkts") && text.contains("retransmitted_pkts=1"), text);
                assertTrue(text.contains("pause_time_ns@prio3=5000"), text);
            }
            c.add(Counter.SENT_PKTS, 1);
            assertEquals(6, c.get(Counter.SENT_PKTS));
            assertEquals(5, qp.get(Counter.SENT_PKTS));
        }
        assertEquals(0, dir.toFile().list().length, "close removes the file");
    }

    @Test
    void qpRowsAreFreedOnReleaseReusedAndFallBackToTotalsWhenFull() {
        try (EngineCounters c = EngineCounters.open(dir, "dev1", 2)) {
            QpCounters a = c.qp(1);
            QpCounters b = c.qp(2);
            assertTrue(a.tracked() && b.tracked());
            int rows = rows(c, "dev1 qp ");
            assertEquals(2 * Counter.count(Counter.Scope.QP), rows);
            a.add(Counter.RCVD_PKTS, 7);
            c.release(a);
            assertEquals(Counter.count(Counter.Scope.QP), rows(c, "dev1 qp "), "released rows are gone");
            a.add(Counter.RCVD_PKTS, 1); // a late add after release: totals only, never someone else's row
            assertEquals(8, c.get(Counter.RCVD_PKTS), "released QP's counts stay in the device total");
            QpCounters d = c.qp(3);
            assertTrue(d.tracked(), "freed rows are reused");
            assertEquals(0, d.get(Counter.RCVD_PKTS), "a reused row starts at zero");
            // with room for 2 QPs by capacity the file may have a few spare rows (sizes are powers of two): fill up
            QpCounters last;
            int n = 4;
            do {
                last = c.qp(n++);
            } while (last.tracked());
            assertEquals(1, c.get(Counter.QP_COUNTERS_UNAVAILABLE));
            last.add(Counter.RCVD_PKTS, 2);
            assertEquals(2, last.get(Counter.RCVD_PKTS), "an unpublished QP still counts its own (the engine reads them)");
            assertEquals(0, rows(c, "dev1 qp " + (n - 1) + " "), "but has no rows in the file");
            assertEquals(10, c.get(Counter.RCVD_PKTS));
            assertEquals(8, a.get(Counter.RCVD_PKTS), "a released QP keeps its values in process (7, then the late 1)");
        }
    }

    @Test
    void twoDevicesOfOneNameGetTwoFilesAndDeadEnginesFilesAreRemoved() throws Exception {
        try (EngineCounters a = EngineCounters.open(dir, "same", 1); EngineCounters b = EngineCounters.open(dir, "same", 1)) {
            assertNotEquals(a.path(), b.path());
        }
        Path dead = dir.resolve("engine-gone-1.counters");
        CountersFile f = CountersFile.create(dead, 4, "engine gone");
        f.running();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dead, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(0, gone.pid()), CountersFile.PID_AT);
        }
        EngineCounters.open(dir, "x", 1).close();
        assertFalse(Files.exists(dead), "a killed engine's file is removed when the next engine opens");
    }

    @Test
    void inMemoryCountersWork() {
        try (EngineCounters c = EngineCounters.inMemory("mem")) {
            assertNull(c.path());
            QpCounters qp = c.qp(9);
            qp.increment(Counter.NAKS_SENT);
            assertEquals(1, qp.get(Counter.NAKS_SENT));
            assertEquals(1, c.get(Counter.NAKS_SENT));
        }
    }

    @Test
    void incrementsAllocateNothing() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "needs com.sun.management.ThreadMXBean");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation accounting unsupported");
        try (EngineCounters c = EngineCounters.open(dir, "alloc", 2)) {
            QpCounters qp = c.qp(5);
            Counter[] all = Counter.values();
            run(c, qp, all, 20_000); // warm up (JIT)
            // any per-increment allocation shows in every pass; a one-off (deoptimisation) in at most one
            long allocated = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                run(c, qp, all, 10_000);
                allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertEquals(0, allocated, "bytes allocated by increments in the quietest pass");
            long rotated = 2 * ((20_000 + all.length - 1) / all.length + 3 * ((10_000 + all.length - 1) / all.length));
            assertEquals(50_000L * 2 + rotated, c.get(Counter.SENT_PKTS), "every increment counted");
        }
    }

    private static void run(EngineCounters c, QpCounters qp, Counter[] all, int rounds) {
        for (int i = 0; i < rounds; i++) {
            qp.increment(Counter.SENT_PKTS);
            qp.add(all[i % all.length], 2);
            c.increment(Counter.SENT_PKTS);
            c.add(Counter.PAUSE_FRAMES_RCVD, i & 7, 1);
        }
    }

    private static int rows(EngineCounters c, String prefix) {
        try (CountersFile.Snapshot s = CountersFile.read(c.path())) {
            return (int) EngineStatReport.values(s.reader()).keySet().stream().filter(k -> k.startsWith(prefix)).count();
        }
    }
}
