package org.urdma.express;

import java.nio.file.Path;
import java.time.Duration;
import org.urdma.express.receiver.ReceiverHooks;

/**
 * What {@code urdma serve} does.
 *
 * @param root        the only directory it writes under
 * @param mem         staging memory per session, bytes
 * @param ioThreads   threads per session hashing, writing and syncing
 * @param token       the shared token clients must prove, or null to take any client
 * @param wan         offer the WAN mode
 * @param idleTimeout how long a session's client may be silent before the session ends (its durable blocks stay)
 * @param hooks       test seams
 */
public record ServeOptions(Path root, long mem, int ioThreads, byte[] token, boolean wan, Duration idleTimeout, ReceiverHooks hooks) {
    public ServeOptions {
        if (mem < 2L * CopyOptions.MIN_BLOCK) throw new IllegalArgumentException("--mem: at least " + 2L * CopyOptions.MIN_BLOCK + " bytes, was " + mem);
        if (ioThreads < 1 || ioThreads > 64) throw new IllegalArgumentException("--io-threads: 1..64, was " + ioThreads);
        if (hooks == null) hooks = ReceiverHooks.NONE;
    }

    public static ServeOptions under(Path root) {
        return new ServeOptions(root, 256L << 20, 2, null, true, Duration.ofSeconds(60), ReceiverHooks.NONE);
    }

    public ServeOptions withMem(long m) {
        return new ServeOptions(root, m, ioThreads, token, wan, idleTimeout, hooks);
    }

    public ServeOptions withIoThreads(int n) {
        return new ServeOptions(root, mem, n, token, wan, idleTimeout, hooks);
    }

    public ServeOptions withToken(byte[] t) {
        return new ServeOptions(root, mem, ioThreads, t, wan, idleTimeout, hooks);
    }

    public ServeOptions withWan(boolean w) {
        return new ServeOptions(root, mem, ioThreads, token, w, idleTimeout, hooks);
    }

    public ServeOptions withIdleTimeout(Duration d) {
        return new ServeOptions(root, mem, ioThreads, token, wan, d, hooks);
    }

    public ServeOptions withHooks(ReceiverHooks h) {
        return new ServeOptions(root, mem, ioThreads, token, wan, idleTimeout, h);
    }
}
