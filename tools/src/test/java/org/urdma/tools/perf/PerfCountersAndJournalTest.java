package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.engine.SoftQp;
import org.urdma.verbs.WrOpcode;

/**
 * {@code urdma perf --counters --journal}: {@code urdma stat} reads the live engines' numbers under 1 % loss and prints
 * what the engines counted, and {@code urdma journal} filters the run's events by QP and type.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PerfCountersAndJournalTest {
    @TempDir
    Path dir;

    /** Runs {@code urdma ARGS} in this JVM; returns exit code and what it printed. */
    static String[] urdma(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int rc;
        synchronized (UrdmaCli.class) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                rc = UrdmaCli.commandLine().execute(args);
            } finally {
                System.setOut(saved);
            }
        }
        return new String[] {Integer.toString(rc), out.toString(StandardCharsets.UTF_8)};
    }

    /** The {@code name=value} pairs of the first line of {@code text} that starts with {@code prefix}. */
    static Map<String, Long> pairs(String text, String prefix) {
        Matcher line = Pattern.compile("(?m)^" + Pattern.quote(prefix) + ".*$").matcher(text);
        assertTrue(line.find(), "no line '" + prefix + "' in\n" + text);
        Map<String, Long> out = new HashMap<>();
        Matcher m = Pattern.compile("(\\w+)=(\\d+)").matcher(line.group());
        while (m.find()) out.put(m.group(1), Long.parseLong(m.group(2)));
        return out;
    }

    @Test
    void statPrintsTheLiveEnginesNumbersAndTheJournalFiltersThemByQpAndType() {
        PerfOptions o = new PerfOptions();
        o.connection = "RC";
        o.txDepth = 64;
        o.loss = 0.01;
        o.counters = dir.toString();
        Path journal = dir.resolve("perf.journal");
        o.journal = journal.toString();
        long resent, naks;
        int qpn;
        try (PerfSession s = new PerfSession(o, (int) PerfSide.bufferSize(4096), 64)) {
            MemoryPerfSide[] client = MemoryPerfSide.sides(s, false, 4096, null);
            PerfPatterns.window(client, WrOpcode.RDMA_WRITE, 4096, 5000, 0, 64, 0);
            QpCounters a = ((SoftQp) s.client).counters();
            QpCounters b = ((SoftQp) s.server).counters();
            qpn = s.client.qpNum();
            resent = a.get(Counter.RETRANSMITTED_PKTS);
            naks = a.get(Counter.NAKS_RCVD);
            assertTrue(resent > 0 && naks > 0, "1% loss made retransmissions: " + resent + ", NAKs " + naks);
            assertEquals(naks, b.get(Counter.NAKS_SENT));

            // while the engines live: urdma stat prints the same numbers, per device and per QP
            String[] stat = urdma("stat", "--dir", dir.toString(), "--name", "urdma0");
            assertEquals("0", stat[0], stat[1]);
            assertTrue(stat[1].contains(", running,"), stat[1]);
            Map<String, Long> dev = pairs(stat[1], "  counters:");
            assertEquals(resent, dev.get("retransmitted_pkts"), stat[1]);
            assertEquals(naks, dev.get("naks_rcvd"), stat[1]);
            assertEquals(naks, dev.get("rcvd_seq_err"), stat[1]);
            assertEquals(a.get(Counter.COMPLETER_RETRY_ERR), dev.get("completer_retry_err"), stat[1]);
            Map<String, Long> qp = pairs(stat[1], "  qp " + qpn + ":");
            assertEquals(resent, qp.get("retransmitted_pkts"), stat[1]);
            assertEquals(naks, qp.get("naks_rcvd"), stat[1]);
            assertTrue(stat[1].contains("sent " + a.get(Counter.SENT_PKTS) + " pkts " + a.get(Counter.SENT_BYTES) + " B"), stat[1]);
            String[] server = urdma("stat", "--dir", dir.toString(), "--name", "urdma1");
            Map<String, Long> srv = pairs(server[1], "  counters:");
            assertEquals(naks, srv.get("naks_sent"), server[1]);
            assertEquals(naks, srv.get("out_of_seq_request"), server[1]);
        }
        assertFalse(urdma("stat", "--dir", dir.toString())[1].contains("engine-urdma0"), "the run removed its counters files");

        // afterwards: the journal holds every retransmitted PSN of the QP, and filters by QP and type
        String[] rt = urdma("journal", journal.toString(), "--qp", Integer.toString(qpn), "--type", "RETRANSMIT");
        assertEquals("0", rt[0], rt[1]);
        long sum = 0;
        List<String> lines = rt[1].lines().toList();
        for (String l : lines) {
            assertTrue(l.contains(" qp " + qpn + " RETRANSMIT first_psn="), l);
            Matcher m = Pattern.compile(" count=(\\d+) reason=(NAK|TIMEOUT)").matcher(l);
            assertTrue(m.find(), l);
            sum += Long.parseLong(m.group(1));
        }
        assertEquals(resent, sum, "journalled retransmissions == retransmitted_pkts");
        String[] nak = urdma("journal", journal.toString(), "--type", "NAK_SENT,NAK_RCVD");
        assertEquals(2 * naks, nak[1].lines().count(), nak[1]);
        assertTrue(nak[1].lines().allMatch(l -> l.contains(" NAK_SENT ") || l.contains(" NAK_RCVD ")), nak[1]);
        String[] states = urdma("journal", journal.toString(), "--qp", Integer.toString(qpn), "--type", "QP_STATE");
        assertEquals(List.of("from=RESET to=INIT", "from=INIT to=RTR", "from=RTR to=RTS"),
                states[1].lines().map(l -> l.substring(l.indexOf("from="))).toList());
    }

    @Test
    void perfWriteBwTakesCountersAndJournalOptions() throws Exception {
        Path journal = dir.resolve("cli.journal");
        String[] r = urdma("perf", "write-bw", "-n", "200", "-s", "4096", "--no-copy-baseline", "--counters", dir.toString(),
                "--journal", journal.toString());
        assertEquals("0", r[0], r[1]);
        assertTrue(r[1].contains(" Counters        : " + dir.resolve("engine-urdma0-")), r[1]);
        assertTrue(r[1].contains(" Journal         : " + journal), r[1]);
        assertTrue(Files.isDirectory(journal));
        String[] states = urdma("journal", journal.toString(), "--type", "QP_STATE");
        assertEquals(6, states[1].lines().count(), "two QPs, RESET to RTS: " + states[1]);
        String[] off = urdma("perf", "write-bw", "-n", "200", "-s", "4096", "--no-copy-baseline");
        assertEquals("0", off[0], off[1]);
        assertFalse(off[1].contains(" Counters ") || off[1].contains(" Journal "), "off by default: " + off[1]);
        List<String> left = new ArrayList<>();
        try (var ds = Files.newDirectoryStream(dir, "*.counters")) {
            ds.forEach(p -> left.add(p.toString()));
        }
        assertEquals(List.of(), left, "counters files are removed when the run ends");
    }
}
