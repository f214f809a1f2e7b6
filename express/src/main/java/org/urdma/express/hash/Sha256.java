package org.urdma.express.hash;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256, the hash users check copies with ({@code sha256sum}); the JDK's implementation uses the CPU's SHA or
 * AVX2 intrinsics, so a block hashes at memory-copy order speeds on the I/O threads. One digest per thread.
 */
public final class Sha256 {
    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(Sha256::newDigest);

    private Sha256() {
    }

    /** {@return a fresh digest} */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** {@return the hash of the buffer's remaining bytes (its position is left unchanged)} */
    public static byte[] of(ByteBuffer b) {
        MessageDigest d = DIGEST.get();
        d.update(b.duplicate());
        return d.digest();
    }

    public static byte[] of(byte[] b) {
        return DIGEST.get().digest(b);
    }

    /** {@return the file digest: SHA-256 over its block hashes in block order} */
    public static byte[] overBlocks(byte[][] blockHashes) {
        MessageDigest d = DIGEST.get();
        for (byte[] h : blockHashes) d.update(h);
        return d.digest();
    }

    public static String hex(byte[] h) {
        return HexFormat.of().formatHex(h);
    }
}
