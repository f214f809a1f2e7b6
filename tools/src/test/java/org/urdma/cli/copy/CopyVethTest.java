package org.urdma.cli.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
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

/** urdma serve and urdma copy as a user runs them: two JVMs in two namespaces joined by a veth pair, AF_PACKET, RoCEv2. */
@Tag("root")
class CopyVethTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void aTreeCopiesBetweenTwoNamespacesAndBackByAPullAndSha256sumAgreesWithTheManifestAtBothEnds() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/sub"));
        byte[] big = new byte[5 << 20];
        new Random(1).nextBytes(big);
        Files.write(tmp.resolve("src/big"), big);
        for (int i = 0; i < 100; i++) Files.write(src.resolve("small " + i), ("file " + i).getBytes(StandardCharsets.UTF_8));
        Files.write(tmp.resolve("src/new\nline"), "odd".getBytes(StandardCharsets.UTF_8));
        try (RandomAccessFile f = new RandomAccessFile(tmp.resolve("src/sparse").toFile(), "rw")) {
            f.setLength(16 << 20);
            f.seek(8 << 20);
            f.write(big, 0, 4096);
        }
        Files.createSymbolicLink(tmp.resolve("src/link"), Path.of("big"));
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path manifest = tmp.resolve("manifest");
        try (Topology t = Topology.create()) {
            String[] hosts = NamespaceHosts.pair(t, "10.94.0");
            String a = hosts[0], b = hosts[1];
            Process server = NamespaceHosts.start(b, "serve", "--root", root.toString(), "--link", "afpacket:eth0", "--ip", "10.94.0.12/24");
            try {
                Process client = NamespaceHosts.start(a, "copy", "--quiet", "--json", "--timeout", "10", "--block-size", "4M", "--mem", "32M", "--manifest", manifest.toString(),
                        "--link", "afpacket:eth0", "--ip", "10.94.0.11/24", tmp.resolve("src").toString(), "10.94.0.2:in");
                boolean done = client.waitFor(120, TimeUnit.SECONDS);
                String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(done, "copy still running after 120 s:\n" + out);
                assertEquals(0, client.exitValue(), out);
                assertTrue(out.contains("\"transport\":\"wan "), out);
                Process pull = NamespaceHosts.start(a, "copy", "--quiet", "--json", "--timeout", "10", "--block-size", "1M", "--mem", "8M",
                        "--link", "afpacket:eth0", "--ip", "10.94.0.11/24", "10.94.0.2:in/src", tmp.resolve("back").toString());
                done = pull.waitFor(120, TimeUnit.SECONDS);
                out = new String(pull.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(done, "pull still running after 120 s:\n" + out);
                assertEquals(0, pull.exitValue(), out);
            } finally {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
        NamespaceHosts.assertManifestHolds(manifest, root.resolve("in"), 103);
        NamespaceHosts.assertManifestHolds(manifest, tmp.resolve("back"), 103); // pulled back from the server: the same bytes
        assertEquals(Path.of("big"), Files.readSymbolicLink(tmp.resolve("back/src/link")));
        assertEquals(Path.of("big"), Files.readSymbolicLink(root.resolve("in/src/link")));
        assertEquals(16 << 20, Files.size(root.resolve("in/src/sparse")));
    }
}
