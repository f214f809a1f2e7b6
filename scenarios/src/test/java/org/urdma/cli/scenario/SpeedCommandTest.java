package org.urdma.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.cli.UrdmaCli;

class SpeedCommandTest {
    @Test
    void describedRunReportsWallAndCpuSpeedForBothWorlds() {
        StringWriter out = new StringWriter();
        var cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        int rc = cl.execute("scenario", "speed", "--described", "--ms", "5", "--warmup-ms", "1", "--senders", "2",
                "--path-gbps", "10", "--incast-gbps", "10");
        String text = out.toString();
        assertEquals(0, rc, text);
        assertTrue(text.contains("described payloads"), text);
        List<String> lines = text.lines().toList();
        String header = lines.stream().filter(l -> l.startsWith("world")).findFirst().orElseThrow();
        List<String> columns = List.of(header.trim().split("\\s+"));
        int wall = columns.indexOf("sim_s_per_wall_s");
        int cpu = columns.indexOf("sim_s_per_cpu_s");
        int goodput = columns.indexOf("goodput_gbps");
        assertTrue(wall > 0 && cpu > 0 && goodput > 0, header);
        for (String world : List.of("2 hosts @ 10G", "2:1 incast @ 10G")) {
            String row = lines.stream().filter(l -> l.startsWith(world)).findFirst().orElseThrow(() -> new AssertionError(text));
            String[] f = row.substring(world.length()).trim().split("\\s+");
            // the world name took one column of the header
            assertTrue(Double.parseDouble(f[wall - 1]) > 0, row);
            assertTrue(Double.parseDouble(f[cpu - 1]) >= Double.parseDouble(f[wall - 1]) * 0.9, "CPU time <= wall time: " + row);
            assertTrue(Double.parseDouble(f[goodput - 1]) > 1, "the path carries data: " + row);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "--described;--rtt-ms;80;--described: a --rtt-ms path describes payloads already",
        "--payload-bytes;--ms;1;--payload-bytes: only with --rtt-ms"})
    void conflictingOptionsAreRefusedByName(String flag, String option, String value, String message) {
        String line = Refusal.of("scenario", "speed", flag, option, value);
        assertTrue(line.startsWith("urdma scenario speed: " + message), line);
    }
}
