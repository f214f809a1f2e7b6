package org.urdma.cli.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/** urdma serve --transport tcp and urdma copy --transport tcp as a user runs them: two JVMs in two namespaces joined by a veth pair. */
@Tag("root")
class CopyTcpVethTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void aTreePushedAndPulledBackOverKernelTcpBetweenTwoNamespacesPassesSha256sumAtBothEnds() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/sub"));
        byte[] big = new byte[6 << 20];
        new Random(2).nextBytes(big);
        Files.write(tmp.resolve("src/big"), big);
        for (int i = 0; i < 40; i++) Files.write(src.resolve("small " + i), ("file " + i).getBytes(StandardCharsets.UTF_8));
        Files.createSymbolicLink(tmp.resolve("src/link"), Path.of("big"));
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path manifest = tmp.resolve("manifest");
        try (Topology t = Topology.create()) {
            String[] hosts = NamespaceHosts.pair(t, "10.95.0");
            String a = hosts[0], b = hosts[1];
            Process server = NamespaceHosts.start(b, "serve", "--root", root.toString(), "--transport", "tcp");
            try {
                awaitServing(server);
                String out = run(NamespaceHosts.start(a, "copy", "--quiet", "--json", "--transport", "tcp", "--cc", "bbr", "--streams", "2", "--block-size", "1M",
                        "--mem", "8M", "--manifest", manifest.toString(), tmp.resolve("src").toString(), "10.95.0.2:in"));
                assertTrue(out.contains("\"transport\":\"tcp cc=bbr streams=2\""), out);
                run(NamespaceHosts.start(a, "copy", "--quiet", "--json", "--transport", "tcp", "--block-size", "1M", "--mem", "8M", "10.95.0.2:in/src",
                        tmp.resolve("back").toString()));
            } finally {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
        NamespaceHosts.assertManifestHolds(manifest, root.resolve("in"), 41);
        NamespaceHosts.assertManifestHolds(manifest, tmp.resolve("back"), 41);
        assertEquals(Path.of("big"), Files.readSymbolicLink(root.resolve("in/src/link")));
        assertEquals(Path.of("big"), Files.readSymbolicLink(tmp.resolve("back/src/link")));
    }

    private static String run(Process client) throws Exception {
        boolean done = client.waitFor(60, TimeUnit.SECONDS);
        String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, "copy still running after 60 s:\n" + out);
        assertEquals(0, client.exitValue(), out);
        return out;
    }

    private static void awaitServing(Process server) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = r.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.startsWith("urdma serve: serving")) {
                assertTrue(line.contains("tcp on port 18521"), line);
                Thread.ofPlatform().daemon().start(() -> r.lines().forEach(l -> { })); // keep its pipe drained
                return;
            }
        }
        throw new AssertionError("serve ended before serving:\n" + seen);
    }
}
