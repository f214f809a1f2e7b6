package org.urdma.express;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What one {@code urdma copy} does.
 *
 * @param blockSize        bytes per block: the unit hashed, written, journaled and re-requested
 * @param mem              bytes of staging memory this side may use (a bounded ring of blocks)
 * @param ioThreads        threads reading files and hashing
 * @param verifyReread     the server re-reads each file after it is durable and compares its block hashes
 * @param manifest         where to write {@code sha256sum -c} lines of the files copied, or null
 * @param excludes         globs of names or relative paths to leave out
 * @param skipExistingSize skip a file whose target exists with the same size
 * @param wan              offer the WAN mode (SACK, FEC, RRCC)
 * @param allowGbn         go on in go-back-N when the peer does not agree on the WAN mode
 * @param token            the shared token, or null
 * @param timeout          how long connecting may take, and how long the peer may be silent
 * @param abortAfterBytes  a test seam: stop abruptly after this many data bytes were posted (-1: never)
 * @param rateBps          RRCC's reference rate offered, bit/s (0: none; the lower of both sides' applies)
 * @param maxRateBps       RRCC's cap offered, bit/s (0: none; the lower of both sides' applies); at least {@code rateBps}
 * @param sync             what happens to targets that exist: compared by checksum, or deleted when the source lacks them
 */
public record CopyOptions(int blockSize, long mem, int ioThreads, boolean verifyReread, Path manifest, List<String> excludes,
                          boolean skipExistingSize, boolean wan, boolean allowGbn, byte[] token, Duration timeout, long abortAfterBytes,
                          long rateBps, long maxRateBps, TreeSync sync) {
    public static final int MIN_BLOCK = 64 * 1024;
    public static final int MAX_BLOCK = 64 * 1024 * 1024;

    public CopyOptions {
        if (blockSize < MIN_BLOCK || blockSize > MAX_BLOCK || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("--block-size: a power of two from 64 KiB to 64 MiB, was " + blockSize);
        }
        if (mem < 2L * blockSize) throw new IllegalArgumentException("--mem: at least two blocks (" + 2L * blockSize + " bytes), was " + mem);
        if (ioThreads < 1 || ioThreads > 64) throw new IllegalArgumentException("--io-threads: 1..64, was " + ioThreads);
        excludes = List.copyOf(excludes);
        if (rateBps < 0) throw new IllegalArgumentException("--rate: a rate above 0, was " + rateBps);
        if (maxRateBps < 0) throw new IllegalArgumentException("--max-rate: a rate above 0, was " + maxRateBps);
        if (maxRateBps > 0 && maxRateBps < rateBps) {
            throw new IllegalArgumentException("--max-rate: at least --rate (" + rateBps + " bit/s), was " + maxRateBps + " bit/s");
        }
        if (sync == null) sync = TreeSync.NONE;
    }

    /** {@return 4 MiB blocks, 256 MiB of staging memory, two I/O threads, WAN mode, 30 s} */
    public static CopyOptions defaults() {
        return new CopyOptions(4 << 20, 256L << 20, 2, false, null, List.of(), false, true, false, null, Duration.ofSeconds(30), -1, 0, 0, TreeSync.NONE);
    }

    public CopyOptions withBlockSize(int b) {
        return new CopyOptions(b, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withMem(long m) {
        return new CopyOptions(blockSize, m, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withIoThreads(int n) {
        return new CopyOptions(blockSize, mem, n, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withVerifyReread(boolean v) {
        return new CopyOptions(blockSize, mem, ioThreads, v, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withManifest(Path p) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, p, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withExcludes(List<String> e) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, e, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withSkipExistingSize(boolean s) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, s, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withWan(boolean w) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, w, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withAllowGbn(boolean a) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, a, token, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withToken(byte[] t) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, t, timeout, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withTimeout(Duration t) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, t, abortAfterBytes, rateBps, maxRateBps, sync);
    }

    public CopyOptions withAbortAfterBytes(long n) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, n, rateBps, maxRateBps, sync);
    }

    public CopyOptions withRate(long bps) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, bps, maxRateBps, sync);
    }

    public CopyOptions withMaxRate(long bps) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, bps, sync);
    }

    public CopyOptions withSync(TreeSync t) {
        return new CopyOptions(blockSize, mem, ioThreads, verifyReread, manifest, excludes, skipExistingSize, wan, allowGbn, token, timeout, abortAfterBytes, rateBps, maxRateBps, t);
    }

    public CopyOptions withSkipExistingChecksum(boolean c) {
        return withSync(new TreeSync(c, sync.delete(), sync.deleteExcluded()));
    }

    public CopyOptions withDelete(boolean d) {
        return withSync(new TreeSync(sync.skipExistingChecksum(), d, sync.deleteExcluded()));
    }

    /** {@return the HELLO/PULL flags of these options} */
    public int flags() {
        return (skipExistingSize ? org.urdma.express.protocol.Message.SKIP_EXISTING_SIZE : 0)
                | (verifyReread ? org.urdma.express.protocol.Message.VERIFY_REREAD : 0)
                | (sync.skipExistingChecksum() ? org.urdma.express.protocol.Message.SKIP_EXISTING_CHECKSUM : 0)
                | (sync.delete() ? org.urdma.express.protocol.Message.DELETE : 0);
    }

    /**
     * What happens to targets that exist.
     *
     * @param skipExistingChecksum leave a target alone when it has the source's size and SHA-256 (only differing blocks travel otherwise)
     * @param delete               delete, in each directory sent, what the destination has and the source does not
     * @param deleteExcluded       deletion takes excluded names too (by default they are protected)
     */
    public record TreeSync(boolean skipExistingChecksum, boolean delete, boolean deleteExcluded) {
        public static final TreeSync NONE = new TreeSync(false, false, false);
    }

    /**
     * {@return the WAN offer of a client with these options: none, or every WAN feature with RRCC at {@link #rateBps} and
     * under {@link #maxRateBps} if set}
     */
    public org.urdma.transport.cm.WanOffer wanOffer() {
        if (!wan) return org.urdma.transport.cm.WanOffer.NONE;
        org.urdma.transport.cm.WanOffer o = rateBps > 0 ? org.urdma.transport.cm.WanOffer.parse(true, null, null, "rrcc,ref=" + rateBps)
                : org.urdma.transport.cm.WanOffer.FULL;
        return o.withMax(maxRateBps);
    }
}
