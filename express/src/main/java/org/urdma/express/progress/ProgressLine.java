package org.urdma.express.progress;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A line rewritten in place once a second on a terminal: bytes and files verified of those found so far, goodput,
 * the rate data leaves at, blocks resent, ETA. A small renderer rather than a progress-bar library: one line of
 * text is all it draws, and a library would bring terminal detection this line does not need.
 */
public final class ProgressLine implements AutoCloseable {
    private final TransferCounters c;
    private final PrintStream out;
    private final Thread thread;
    private final long start = System.nanoTime();
    private volatile boolean stop;

    private ProgressLine(TransferCounters c, PrintStream out) {
        this.c = c;
        this.out = out;
        this.thread = Thread.ofPlatform().daemon().name("urdma-progress").start(this::run);
    }

    /** {@return a progress line on {@code out}, or null when {@code enabled} is false (not a terminal, --json, --quiet)} */
    public static ProgressLine startIf(boolean enabled, TransferCounters c, PrintStream out) {
        return enabled ? new ProgressLine(c, out) : null;
    }

    private void run() {
        long lastSent = 0;
        long last = start;
        while (!stop) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            long sent = c.bytesSent.get();
            out.print("\r" + render(c, (now - start) / 1e9, (sent - lastSent) * 8e9 / Math.max(1, now - last)) + "\u001b[K");
            out.flush();
            lastSent = sent;
            last = now;
        }
    }

    /** The line's text. */
    public static String render(TransferCounters c, double seconds, double wireBps) {
        long done = c.bytesVerified.get();
        long total = c.bytesTotal.get();
        double goodput = seconds > 0 ? done * 8 / seconds : 0;
        String eta = goodput > 0 && total > done ? String.format(Locale.ROOT, "%.0f s", (total - done) * 8 / goodput) : "-";
        return String.format(Locale.ROOT, "%s / %s, %d / %d files, %.1f Mbit/s verified, %.1f Mbit/s sending, %d resent, ETA %s",
                bytes(done), bytes(total), c.filesVerified.get(), c.filesTotal.get(), goodput / 1e6, wireBps / 1e6, c.resentBlocks.get(), eta);
    }

    static String bytes(long b) {
        if (b < 1 << 20) return String.format(Locale.ROOT, "%.1f KiB", b / 1024.0);
        if (b < 1L << 30) return String.format(Locale.ROOT, "%.1f MiB", b / 1048576.0);
        return String.format(Locale.ROOT, "%.2f GiB", b / 1073741824.0);
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
        out.print("\r\u001b[K");
        out.flush();
    }
}
