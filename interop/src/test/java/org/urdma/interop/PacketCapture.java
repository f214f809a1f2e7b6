package org.urdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** dumpcap on an interface inside a {@link Netns}, writing a pcap; stopped (and flushed) by close(). */
final class PacketCapture implements AutoCloseable {

    private final Process process;
    private final Path file;

    private PacketCapture(Process process, Path file) {
        this.process = process;
        this.file = file;
    }

    static boolean available() {
        try {
            Interop.run(Duration.ofSeconds(20), "dumpcap", "--version");
            return true;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Starts capturing and waits until dumpcap has written the file header. */
    static PacketCapture start(Netns ns, String iface, Path file) throws IOException, InterruptedException {
        Files.deleteIfExists(file);
        Process p = ns.start(new ProcessBuilder(ns.exec("dumpcap", "-q", "-i", iface, "-P", "-w", file.toString()))
                .redirectErrorStream(true).redirectOutput(file.resolveSibling(file.getFileName() + ".log").toFile()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!(Files.exists(file) && Files.size(file) >= 24)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                Interop.kill(p, Duration.ofSeconds(1));
                throw new IOException("dumpcap did not start on " + iface + " in " + ns.name());
            }
            Thread.sleep(50);
        }
        return new PacketCapture(p, file);
    }

    Path file() {
        return file;
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: dumpcap flushes and closes the file
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
