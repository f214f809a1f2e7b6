package org.urdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** The cached guest kernel + initramfs built by interop/build-initramfs.sh. */
record GuestImage(Path dir) {

    private static GuestImage cached;

    Path kernel() {
        return dir.resolve("vmlinuz");
    }

    Path initramfs() {
        return dir.resolve("initramfs.cpio.gz");
    }

    /** Builds (first time: downloads ~75 MB of Debian packages, ~25 s) or reuses the cached image. */
    static synchronized GuestImage get() throws IOException, InterruptedException {
        if (cached == null) {
            Path script = Interop.repoRoot().resolve("interop/build-initramfs.sh");
            String out = Interop.run(Duration.ofMinutes(10), "bash", script.toString()).strip();
            Path dir = Path.of(out.substring(out.lastIndexOf('\n') + 1).strip());
            if (!Files.isRegularFile(dir.resolve("vmlinuz")) || !Files.isRegularFile(dir.resolve("initramfs.cpio.gz"))) {
                throw new IOException("build-initramfs.sh did not produce an image in " + dir + ":\n" + out);
            }
            cached = new GuestImage(dir);
        }
        return cached;
    }
}
