package org.urdma.express;

import java.util.List;
import java.util.Locale;

/**
 * How a copy ended.
 *
 * @param failures      one line per entry that did not finish
 * @param lost          the connection ended before every entry was done (a rerun resumes)
 * @param cpuSeconds    CPU time of this process during the copy (both sides when they share a process)
 * @param repaired      blocks the server re-requested because their placed bytes did not hash to the sender's hash
 * @param transport     the connection's mode: the WAN features agreed, or go-back-N
 * @param skipped       files verified without being sent: their targets already matched ({@code --skip-existing})
 * @param deleted       entries deleted at the destination because the source lacks them ({@code --delete})
 */
public record CopyResult(long bytes, long files, long filesVerified, double seconds, long bytesSent, long resentBlocks, long resentBytes,
                         long repaired, long hashesVerified, double cpuSeconds, List<String> failures, boolean lost, String lostReason,
                         String transport, long skipped, long deleted) {
    /** Every file verified at the destination. */
    public static final int EXIT_OK = 0;
    /** Some entry failed for a reason a rerun does not cure (refused, unreadable). */
    public static final int EXIT_FAILED = 1;
    /** The copy stopped part way (connection lost, peer gone): what is durable stays, a rerun resumes. */
    public static final int EXIT_PARTIAL = 3;

    public int exitCode() {
        if (lost) return EXIT_PARTIAL;
        return failures.isEmpty() ? EXIT_OK : EXIT_FAILED;
    }

    /** {@return verified data bytes per second} */
    public double goodputBps() {
        return seconds > 0 ? bytes * 8 / seconds : 0;
    }

    /** The {@code --json} summary. */
    public String toJson() {
        StringBuilder f = new StringBuilder("[");
        for (int i = 0; i < failures.size(); i++) f.append(i > 0 ? "," : "").append(quote(failures.get(i)));
        f.append(']');
        return String.format(Locale.ROOT, "{\"exit\":%d,\"transport\":%s,\"bytes\":%d,\"files\":%d,\"filesVerified\":%d,\"seconds\":%.3f,\"goodputBitsPerSecond\":%.0f,"
                + "\"bytesSent\":%d,\"resentBlocks\":%d,\"resentBytes\":%d,\"repaired\":%d,\"hashesVerified\":%d,\"skipped\":%d,\"deleted\":%d,"
                + "\"cpuSeconds\":%.3f,\"failures\":%s%s}", exitCode(), quote(transport), bytes, files, filesVerified, seconds, goodputBps(), bytesSent,
                resentBlocks, resentBytes, repaired, hashesVerified, skipped, deleted, cpuSeconds, f, lost ? ",\"partial\":" + quote(lostReason) : "");
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    /** The one line a terminal gets at the end. */
    public String line() {
        String s = String.format(Locale.ROOT, "%d/%d files verified, %d bytes in %.2f s (%.1f Mbit/s), %d blocks resent, %d repaired",
                filesVerified, files, bytes, seconds, goodputBps() / 1e6, resentBlocks, repaired);
        if (skipped > 0) s += ", " + skipped + " skipped (target matched)";
        if (deleted > 0) s += ", " + deleted + " deleted";
        s += " over " + transport;
        return lost ? s + "; partial, rerun to resume: " + lostReason : s;
    }
}
