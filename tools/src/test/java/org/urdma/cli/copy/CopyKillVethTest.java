package org.urdma.cli.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * kill -9 of the client or of the server part way through a copy between two namespaces, then the same command
 * again: the copy verifies, and the rerun sends no more than what was not durable plus the window and a block per file.
 */
@Tag("root")
class CopyKillVethTest {
    static final int BLOCK = 4 << 20;
    static final long MEM = 16L << 20;
    static final long SIZE = 64L << 20;

    @TempDir
    Path tmp;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @ParameterizedTest
    @ValueSource(strings = {"client", "server"})
    void aCopyKilledMidwayResumesWhenTheSameCommandRunsAgain(String victim) throws Exception {
        byte[] big = new byte[(int) SIZE];
        new Random(2).nextBytes(big);
        Files.createDirectories(tmp.resolve("src"));
        Files.write(tmp.resolve("src/big"), big);
        Files.write(tmp.resolve("src/small"), "x".getBytes(StandardCharsets.UTF_8));
        Path root = Files.createDirectories(tmp.resolve("root"));
        try (Topology t = Topology.create()) {
            String[] hosts = NamespaceHosts.pair(t, "10.95.0");
            String a = hosts[0], b = hosts[1];
            // go-back-N: this test is about kill -9 and resume; the WAN mode's own veth test is CopyVethTest
            String[] copy = {"copy", "--quiet", "--json", "--no-wan", "--allow-gbn", "--retries", "0", "--timeout", "10", "--block-size", "4M", "--mem", "16M",
                "--link", "afpacket:eth0", "--ip", "10.95.0.11/24", tmp.resolve("src").toString(), "10.95.0.2:in"};
            Process server = NamespaceHosts.start(b, "serve", "--root", root.toString(), "--link", "afpacket:eth0", "--ip", "10.95.0.12/24", "--mem", "16M");
            try {
                Process client = NamespaceHosts.start(a, copy);
                long durable = awaitJournaled(root.resolve("in/.urdma-part"), 4, client);
                Process killed = victim.equals("client") ? client : server;
                killed.destroyForcibly(); // SIGKILL
                killed.waitFor(30, TimeUnit.SECONDS);
                if (victim.equals("server")) {
                    assertTrue(client.waitFor(120, TimeUnit.SECONDS), "the client noticed the server was gone");
                    String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertEquals(3, client.exitValue(), "partial, resumable:\n" + out);
                    server = NamespaceHosts.start(b, "serve", "--root", root.toString(), "--link", "afpacket:eth0", "--ip", "10.95.0.12/24", "--mem", "16M");
                }
                Process rerun = NamespaceHosts.start(a, copy);
                assertTrue(rerun.waitFor(180, TimeUnit.SECONDS), "the rerun finished");
                String out = new String(rerun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, rerun.exitValue(), out);
                Matcher m = Pattern.compile("\"bytesSent\":(\\d+)").matcher(out);
                assertTrue(m.find(), out);
                long sent = Long.parseLong(m.group(1));
                assertTrue(sent <= SIZE + 1 - durable + MEM + 2L * BLOCK, "the rerun sent " + sent + " bytes; " + durable + " were durable");
                assertTrue(sent < SIZE, "the rerun skipped durable blocks: " + out);
            } finally {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertArrayEquals(big, Files.readAllBytes(root.resolve("in/src/big")));
    }

    /** Waits until the journals under {@code parts} hold {@code blocks} durable blocks; returns their bytes. */
    private static long awaitJournaled(Path parts, int blocks, Process client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() - deadline < 0) {
            if (!client.isAlive()) {
                throw new AssertionError("the copy ended before it could be killed: " + new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
            long records = 0;
            if (Files.isDirectory(parts)) {
                try (Stream<Path> s = Files.list(parts)) {
                    for (Path j : (Iterable<Path>) s.filter(p -> p.toString().endsWith(".journal"))::iterator) records += Math.max(0, (Files.size(j) - 28) / 36);
                }
            }
            if (records >= blocks) return records * BLOCK;
            Thread.sleep(20);
        }
        throw new AssertionError("no " + blocks + " durable blocks within 120 s");
    }
}
