package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.urdma.transport.pcap.PcapReader;

/** Loads the rxe reference frames from $URDMA_SHARED/vectors; fails (not skips) under CI when missing. */
final class Vectors {
    private Vectors() {
    }

    static Path path(final String name) {
        final String shared = System.getenv("URDMA_SHARED");
        final Path p = shared == null ? null : Path.of(shared, "vectors", name);
        if (p == null || !Files.isReadable(p)) {
            if ("true".equals(System.getenv("CI"))) {
                fail("vectors file missing: " + p + " (URDMA_SHARED=" + shared + ")");
            }
            assumeTrue(false, "vectors file not present: " + p);
        }
        return p;
    }

    static List<byte[]> frames(final String name) throws IOException {
        final List<byte[]> frames = new ArrayList<>();
        try (PcapReader r = new PcapReader(path(name))) {
            while (r.next()) {
                frames.add(r.bytes());
            }
        }
        return frames;
    }
}
