package org.urdma.express.hash;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/** Hashes of all-zero blocks by length, computed once: a hole's block hash without reading or sending it. */
public final class ZeroBlocks {
    private static final ConcurrentHashMap<Integer, byte[]> HASHES = new ConcurrentHashMap<>();
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    private ZeroBlocks() {
    }

    public static byte[] hash(int length) {
        return HASHES.computeIfAbsent(length, n -> {
            java.security.MessageDigest d = Sha256.newDigest();
            feed(d, n);
            return d.digest();
        }).clone();
    }

    /** Feeds {@code n} zero bytes to a running digest (a hole's part of a whole-file hash). */
    public static void feed(java.security.MessageDigest d, long n) {
        while (n > 0) {
            int k = (int) Math.min(n, ZEROS.capacity());
            d.update(ZEROS.duplicate().limit(k));
            n -= k;
        }
    }
}
