package org.urdma.cli.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code urdma stat} reads a running switch's counters while they change (an in-process switch here). */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StatCommandTest {
    @TempDir
    Path dir;

    /** Runs {@code urdma stat ARGS} in this JVM; returns exit code and output. */
    private static String[] stat(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.out;
        int rc;
        synchronized (StatCommandTest.class) {
            System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                List<String> all = new ArrayList<>(List.of("stat"));
                all.addAll(List.of(args));
                rc = UrdmaCli.commandLine().execute(all.toArray(String[]::new));
            } finally {
                System.setOut(saved);
            }
        }
        return new String[]{Integer.toString(rc), out.toString(java.nio.charset.StandardCharsets.UTF_8)};
    }

    private static long txToH3(String text) {
        Matcher m = Pattern.compile("switch s1 port 2 -> h3: rx \\d+ frames \\d+ B(?: \\([^)]*\\))?, tx (\\d+) frames").matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    @Test
    void statShowsTheCountersOfARunningSwitchChangingAndThenStopped() throws Exception {
        Path file = Path.of("..", "examples", "topologies", "incast.yaml");
        Path counters = dir.resolve("run-s1.counters");
        Thread sw = new Thread(() -> new CommandLine(new org.urdma.cli.sw.SwitchCommand())
            .setOut(new PrintWriter(new StringWriter())).execute(file.toString(), "--in-process", "--duration", "3s",
                "--counters", counters.toString()));
        sw.start();
        long end = System.nanoTime() + 60_000_000_000L;
        List<Long> seen = new ArrayList<>();
        String last = "";
        while (seen.size() < 2 && System.nanoTime() < end && sw.isAlive()) {
            if (Files.exists(counters)) {
                String[] r = stat("--dir", dir.toString(), "--name", "s1");
                long tx = txToH3(r[1]);
                if (r[1].contains(", running,") && tx > 0 && (seen.isEmpty() || tx > seen.get(seen.size() - 1))) {
                    seen.add(tx);
                    last = r[1];
                }
            }
            Thread.sleep(200);
        }
        assertTrue(seen.size() >= 2, "urdma stat saw the counters grow while the switch ran: " + seen + "\n" + last);
        assertTrue(last.contains("pfc tx (of which xon):") && last.contains("ecn marked:")
            && last.contains("queue high-water B:") && last.contains("drops:"), last);
        sw.join();
        String[] after = stat("--dir", dir.toString());
        assertEquals("0", after[0], after[1]);
        assertTrue(after[1].contains(", stopped,"), after[1]);
        assertTrue(txToH3(after[1]) >= seen.get(seen.size() - 1), after[1]);
        String[] watch = stat("--dir", dir.toString(), "--watch", "--count", "2", "--interval", "100");
        assertTrue(watch[1].contains("frames/s"), "--watch adds rates: " + watch[1]);
    }

    @Test
    void statShowsEngineCountersBesideTheSwitchesPerDeviceAndPerQp() {
        try (org.urdma.transport.counters.EngineCounters c = org.urdma.transport.counters.EngineCounters.open(dir, "dev7", 4)) {
            org.urdma.transport.counters.QpCounters qp = c.qp(42);
            qp.add(org.urdma.transport.counters.Counter.SENT_PKTS, 10);
            qp.add(org.urdma.transport.counters.Counter.SENT_BYTES, 10_000);
            qp.add(org.urdma.transport.counters.Counter.RETRANSMITTED_PKTS, 2);
            c.increment(org.urdma.transport.counters.Counter.DROP_BAD_ICRC);
            String[] r = stat("--dir", dir.toString(), "--name", "dev7");
            assertEquals("0", r[0], r[1]);
            assertTrue(r[1].contains("engine-dev7-") && r[1].contains(", running,"), r[1]);
            assertTrue(r[1].contains("device dev7: sent 10 pkts 10000 B, rcvd 0 pkts 0 B"), r[1]);
            assertTrue(r[1].contains("drops: bad_icrc=1"), r[1]);
            assertTrue(r[1].contains("  qp 42: sent 10 pkts 10000 B, rcvd 0 pkts 0 B retransmitted_pkts=2"), r[1]);
            String[] watch = stat("--dir", dir.toString(), "--watch", "--count", "2", "--interval", "100");
            assertTrue(watch[1].contains("pkts/s"), "--watch adds rates: " + watch[1]);
            assertEquals("1", stat("--dir", dir.toString(), "--name", "dev8")[0]);
        }
        assertTrue(stat("--dir", dir.toString())[1].contains("no counters files"), "the engine removed its file on close");
    }

    @Test
    void statSaysSoWhenNothingRuns() {
        String[] r = stat("--dir", dir.toString());
        assertEquals("1", r[0]);
        assertTrue(r[1].contains("no counters files"), r[1]);
    }
}
