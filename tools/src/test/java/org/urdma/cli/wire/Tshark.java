package org.urdma.cli.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** Runs tshark on a capture and returns the requested fields, one map per frame. */
public final class Tshark {

    private Tshark() {}

    /** Skips the calling test when tshark is absent, unless CI=true (CI installs it: then it fails). */
    public static void requireInstalled() {
        boolean present = isInstalled();
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("tshark is not installed but CI=true: .ci/run must install it");
        }
        Assumptions.assumeTrue(present, "tshark not installed (apt-get install tshark); skipping");
    }

    public static boolean isInstalled() {
        try {
            Process p = new ProcessBuilder("tshark", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Field values per frame, in frame order; multiple occurrences are joined by ','. */
    public static List<Map<String, String>> fields(Path pcap, List<String> extraArgs, String... fields)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                "tshark", "-n", "-r", pcap.toString(), "--disable-protocol", "rpcordma",
                "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"));
        cmd.addAll(extraArgs);
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("tshark failed on " + pcap + ": exit " + p.exitValue());
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : out.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] cols = line.split("\t", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < fields.length; i++) {
                row.put(fields[i], i < cols.length ? cols[i] : "");
            }
            rows.add(row);
        }
        return rows;
    }
}
