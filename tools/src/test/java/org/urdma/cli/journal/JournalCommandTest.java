package org.urdma.cli.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.journal.Journal;
import org.urdma.transport.journal.RetransmitReason;
import org.urdma.verbs.QpState;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code urdma journal} prints a journal's events, filtered, and rejects bad option values by name. */
class JournalCommandTest {
    @TempDir
    Path dir;

    /** Runs {@code urdma journal ARGS} in this JVM; returns exit code, stdout, stderr. */
    private static String[] journal(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        PrintStream saved = System.out;
        int rc;
        synchronized (JournalCommandTest.class) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                List<String> all = new ArrayList<>(List.of("journal"));
                all.addAll(List.of(args));
                CommandLine cl = UrdmaCli.commandLine();
                cl.setErr(new PrintWriter(err, true));
                rc = cl.execute(all.toArray(String[]::new));
            } finally {
                System.setOut(saved);
            }
        }
        return new String[]{Integer.toString(rc), out.toString(StandardCharsets.UTF_8), err.toString()};
    }

    private Path write() {
        Path q = dir.resolve("engine-dev0-1" + Journal.SUFFIX);
        try (Journal j = Journal.open(q, 1 << 16)) {
            EventJournal a = j.device("dev0", (org.agrona.concurrent.status.AtomicCounter) null);
            EventJournal b = j.device("dev1", (org.agrona.concurrent.status.AtomicCounter) null);
            a.qpState(10, 17, QpState.RTR, QpState.RTS);
            a.retransmit(20, 17, 100, 4, RetransmitReason.TIMEOUT);
            a.retransmit(30, 18, 200, 1, RetransmitReason.NAK);
            b.drop(40, -1, Counter.DROP_UNKNOWN_QP, 5);
            j.agent().doWork();
        }
        return q;
    }

    @Test
    void printsEventsOneALineFilteredByQpTypeAndDevice() {
        Path q = write();
        String[] all = journal(q.toString());
        assertEquals("0", all[0], all[2]);
        assertEquals(4, all[1].lines().count(), all[1]);
        assertTrue(all[1].contains(" t=20 dev0 qp 17 RETRANSMIT first_psn=100 count=4 reason=TIMEOUT"), all[1]);
        String[] qp = journal(q.toString(), "--qp", "0x11", "--type", "retransmit");
        assertEquals(1, qp[1].lines().count(), qp[1]);
        assertTrue(qp[1].contains("qp 17 RETRANSMIT"), qp[1]);
        String[] byName = journal("--dir", dir.toString(), "--name", "dev1");
        assertEquals("0", byName[0]);
        assertTrue(byName[1].strip().endsWith("dev1 qp - DROP reason=drop_unknown_qp psn=5"), byName[1]);
        String[] types = journal(q.toString(), "--type", "QP_STATE,DROP", "--since", "1h");
        assertEquals(2, types[1].lines().count(), types[1]);
        assertEquals("0", journal(q.toString(), "--since", "1d", "--follow", "--count", "2", "--interval", "10")[0]);
        assertTrue(journal(q.toString(), "--since", "2999-01-01T00:00:00Z")[1].isEmpty());
        assertEquals("1", journal("--dir", dir.toString(), "--name", "nosuch")[0]);
    }

    @Test
    void badValuesAreRejectedByNameInOneLine() {
        Path q = write();
        for (String[] bad : List.of(new String[]{"--qp", "x1"}, new String[]{"--type", "bogus"},
            new String[]{"--since", "yesterday"}, new String[]{"--qp", "-3"})) {
            String[] r = journal(q.toString(), bad[0], bad[1]);
            assertEquals("2", r[0], String.join(" ", bad) + ": " + r[2]);
            assertEquals(1, r[2].lines().count(), r[2]);
            assertTrue(r[2].startsWith("urdma journal: ") && r[2].contains(bad[0]) && r[2].contains(bad[1]), r[2]);
            assertFalse(r[2].contains("\tat ") || r[2].contains("java.lang"), r[2]);
        }
        String[] missing = journal(dir.resolve("nope.journal").toString());
        assertEquals("2", missing[0]);
        assertTrue(missing[2].startsWith("urdma journal: ") && missing[2].contains("no such journal directory"), missing[2]);
        String[] none = journal("--dir", dir.resolve("empty").toString());
        assertEquals("1", none[0]);
        assertTrue(none[1].contains("no journals"), none[1]);
    }
}
