package org.urdma.switchemu.stat;

import org.urdma.transport.counters.CountersFile;
import org.urdma.transport.counters.StatDirectory;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CountersFileTest {
    @TempDir
    Path dir;

    @Test
    void aReaderMappingTheFileSeesValuesAsTheWriterSetsThem() {
        Path path = dir.resolve("x-s1.counters");
        try (CountersFile f = CountersFile.create(path, 4, "a test\n" + StatReport.portsLine("s1", List.of("h1")))) {
            AtomicCounter rx = f.manager().newCounter("s1 p0 rx-frames", org.urdma.switchemu.core.SwitchCounters.TYPE_ID);
            f.running();
            try (CountersFile.Snapshot s = CountersFile.read(path)) {
                assertEquals(CountersFile.State.RUNNING, s.state());
                assertTrue(s.alive());
                assertEquals(ProcessHandle.current().pid(), s.pid());
                assertEquals(Map.of("s1 p0 rx-frames", 0L), StatReport.values(s.reader()));
                rx.setRelease(42);
                assertEquals(Map.of("s1 p0 rx-frames", 42L), StatReport.values(s.reader()));
                String text = StatReport.format(s, null, StatReport.values(s.reader()), null, 0);
                assertTrue(text.contains("running") && text.contains("a test"), text);
                assertTrue(text.contains("switch s1 port 0 -> h1: rx 42 frames"), text);
            }
        }
        try (CountersFile.Snapshot s = CountersFile.read(path)) {
            assertEquals(CountersFile.State.STOPPED, s.state(), "close marks it stopped; the values stay");
            assertEquals(42L, StatReport.values(s.reader()).get("s1 p0 rx-frames"));
        }
    }

    @Test
    void aStoppedFileIsReplacedAndFindAndDeleteGoByPrefix() throws Exception {
        CountersFile.create(dir.resolve("tabcd-s1.counters"), 4, "one").close();
        CountersFile.create(dir.resolve("tabcd-s1.counters"), 4, "two").close();
        CountersFile.create(dir.resolve("tabcd.counters"), 4, "in-process").close();
        CountersFile.create(dir.resolve("tzzzz-s1.counters"), 4, "other").close();
        try (CountersFile.Snapshot s = CountersFile.read(dir.resolve("tabcd-s1.counters"))) {
            assertEquals("two", s.description());
        }
        assertEquals(3, StatDirectory.find(List.of(dir), null).size());
        assertEquals(2, StatDirectory.delete(List.of(dir), "tabcd"));
        assertEquals(List.of(dir.resolve("tzzzz-s1.counters")), StatDirectory.find(List.of(dir), null));
    }

    @Test
    void notACountersFileIsRefusedByName() throws Exception {
        Path junk = dir.resolve("junk.counters");
        Files.write(junk, new byte[8192]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CountersFile.read(junk));
        assertTrue(e.getMessage().contains("not a urdma counters file"), e.getMessage());
    }

    private static void setPid(Path path, long pid) throws Exception {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path,
            java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(0, pid);
            ch.write(b, CountersFile.PID_AT);
        }
    }

    @Test
    void aWriterThatWasKilledShowsAsNotRunningAndALiveOneIsNotReplaced() throws Exception {
        Path path = dir.resolve("k-s1.counters");
        CountersFile f = CountersFile.create(path, 4, "killed");
        f.running();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        setPid(path, gone.pid()); // as if that process had written it and died without closing
        try (CountersFile.Snapshot s = CountersFile.read(path)) {
            assertEquals(CountersFile.State.RUNNING, s.state());
            assertTrue(!s.alive());
            String text = StatReport.format(s, null, StatReport.values(s.reader()), null, 0);
            assertTrue(text.contains("not running (pid " + gone.pid() + " gone: killed?)"), text);
        }
        Process live = new ProcessBuilder("sleep", "30").start();
        try {
            setPid(path, live.pid());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> CountersFile.create(path, 4, "again"));
            assertTrue(e.getMessage().contains("belongs to running process " + live.pid()), e.getMessage());
        } finally {
            live.destroy();
            live.waitFor();
        }
        f.close();
    }
}
