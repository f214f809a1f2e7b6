package org.urdma.express.safety;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a client's connection private data carries: a version byte, a fresh 16-byte nonce and HMAC-SHA256 of a context
 * string and the nonce under the shared token. A server with a token refuses a connection whose HMAC does not match;
 * the token itself never travels.
 */
public final class TokenAuth {
    private static final byte[] CONTEXT = "urdma-express-v1".getBytes(StandardCharsets.US_ASCII);
    private static final int NONCE = 16;
    private static final int BYTES = 1 + NONCE + 32;

    private TokenAuth() {
    }

    /** Reads a token file (its bytes, a trailing newline dropped); an empty one is refused. */
    public static byte[] read(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        int n = b.length;
        while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == '\r')) n--;
        if (n == 0) throw new IllegalArgumentException("--token-file: " + file + " is empty");
        return java.util.Arrays.copyOf(b, n);
    }

    /** {@return the private data a client sends: its proof of the token, or a version byte alone without one} */
    public static byte[] privateData(byte[] token) {
        if (token == null) return new byte[] {0};
        byte[] nonce = new byte[NONCE];
        new SecureRandom().nextBytes(nonce);
        return ByteBuffer.allocate(BYTES).put((byte) 1).put(nonce).put(hmac(token, nonce)).array();
    }

    /**
     * Checks a client's private data against the server's token (null: the server takes any client).
     *
     * @throws IllegalArgumentException with a one-line reason
     */
    public static void check(byte[] token, byte[] privateData) {
        if (token == null) return;
        if (privateData.length != BYTES || privateData[0] != 1) {
            throw new IllegalArgumentException("token: this server needs a token and the client sent none (--token-file)");
        }
        byte[] nonce = java.util.Arrays.copyOfRange(privateData, 1, 1 + NONCE);
        byte[] theirs = java.util.Arrays.copyOfRange(privateData, 1 + NONCE, BYTES);
        if (!MessageDigest.isEqual(hmac(token, nonce), theirs)) {
            throw new IllegalArgumentException("token: the client's HMAC does not match this server's token");
        }
    }

    private static byte[] hmac(byte[] token, byte[] nonce) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(token, "HmacSHA256"));
            m.update(CONTEXT);
            return m.doFinal(nonce);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }
}
