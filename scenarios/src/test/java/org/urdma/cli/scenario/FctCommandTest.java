package org.urdma.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;

class FctCommandTest {
    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        assertEquals(0, rc, out + "\n" + err);
        return out.toString();
    }

    @Test
    void aShortFatTreeRunWritesItsTableFilesAndFigure(@TempDir Path dir) throws Exception {
        Path topo = dir.resolve("k4.yaml");
        run("topo", "gen", "fat-tree", "--k", "4", "--buffer-mb", "2", "-o", topo.toString());
        String text = run("scenario", "fct", "--topology", topo.toString(), "--workload", "websearch", "--load", "0.3",
                "--duration-ms", "0.2", "--incast", "4:20000:0.2", "--cc", "none,dcqcn", "--step", "20", "--out", dir.toString());
        List<String> lines = text.lines().toList();
        String header = lines.stream().filter(l -> l.startsWith("pct")).findFirst().orElseThrow(() -> new AssertionError(text));
        assertTrue(header.contains("none_p50") && header.contains("dcqcn_p99"), header);
        assertEquals(5, lines.stream().filter(l -> l.matches("0\\.\\d\\d\\s+\\d+\\s.*")).count(), text);
        assertTrue(text.contains("events/s") && text.contains("peak memory"), text);
        for (String f : List.of("fct_none.txt", "fct_dcqcn.txt", "fct.csv", "slowdown.csv", "flow.txt")) {
            assertTrue(Files.size(dir.resolve(f)) > 0, f);
        }
        byte[] png = Files.readAllBytes(dir.resolve("slowdown.png"));
        assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a PNG");
        // HPCC's columns: sip dip sport dport size start fct ideal, one line per completed flow
        String first = Files.readAllLines(dir.resolve("fct_none.txt")).get(0);
        assertTrue(first.matches("[0-9a-f]{8} [0-9a-f]{8} \\d+ (100|200) \\d+ \\d+ \\d+ \\d+"), first);
        int flows = Integer.parseInt(Files.readAllLines(dir.resolve("flow.txt")).get(0).trim());
        assertEquals(flows, Files.readAllLines(dir.resolve("fct_none.txt")).size(), "every flow completed without CC");
    }

    @Test
    void theFlowListItWroteRunsAgainToTheSameFctFile(@TempDir Path dir) throws Exception {
        Path topo = dir.resolve("ls.yaml");
        run("topo", "gen", "leaf-spine", "--leaves", "2", "--spines", "2", "--hosts-per-leaf", "4", "--buffer-mb", "2", "-o", topo.toString());
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        run("scenario", "fct", "--topology", topo.toString(), "--workload", "fb_hadoop", "--duration-ms", "0.1", "--cc", "dcqcn",
                "--out", a.toString());
        run("scenario", "fct", "--topology", topo.toString(), "--flows", a.resolve("flow.txt").toString(), "--cc", "dcqcn",
                "--out", b.toString());
        assertEquals(Files.readString(a.resolve("fct.txt")), Files.readString(b.resolve("fct.txt")));
    }

    @Test
    void badValuesAreRefusedByName(@TempDir Path dir) throws Exception {
        Path topo = dir.resolve("ls.yaml");
        run("topo", "gen", "leaf-spine", "--leaves", "2", "--spines", "2", "--hosts-per-leaf", "2", "--buffer-mb", "2", "-o", topo.toString());
        String line = Refusal.of("scenario", "fct", "--topology", topo.toString(), "--workload", "nosuch", "--out", dir.toString());
        assertTrue(line.contains("--workload: no file 'nosuch'"), line);
        line = Refusal.of("scenario", "fct", "--topology", topo.toString(), "--workload", "websearch", "--incast", "4:x", "--out",
                dir.toString());
        assertTrue(line.contains("--incast: expected N:SIZE:SHARE"), line);
        line = Refusal.of("scenario", "fct", "--topology", topo.toString(), "--workload", "websearch", "--cc", "nosuch", "--out",
                dir.toString());
        assertTrue(line.contains("--cc: "), line);
        line = Refusal.of("topo", "gen", "fat-tree", "--k", "3");
        assertTrue(line.contains("k: must be even"), line);
    }

    @Test
    void anHpccTopologyImportsAsYaml(@TempDir Path dir) throws Exception {
        Path txt = dir.resolve("t.txt");
        Files.writeString(txt, "4 2 3\n2 3\n0 2 100Gbps 1000ns 0.000000\n1 3 100Gbps 0.001ms 0\n2 3 400Gbps 1000ns 0.001\n");
        String yaml = run("topo", "import", txt.toString());
        assertTrue(yaml.contains("name: h0") && yaml.contains("name: s3") && yaml.contains("loss: 0.001"), yaml);
        assertTrue(yaml.contains("buffer: 32000000"), "HPCC's buffer for 100G hosts: " + yaml);
    }
}
