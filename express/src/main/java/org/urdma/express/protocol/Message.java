package org.urdma.express.protocol;

import java.util.BitSet;
import java.util.List;

/** The control messages as values (decoded by {@link MessageCodec}); data never travels in them, only in WRITEs. */
public sealed interface Message {
    /** Skip a file whose target exists with the source's size. */
    int SKIP_EXISTING_SIZE = 1;
    /** Re-read each file from disk after it is durable and compare its block hashes. */
    int VERIFY_REREAD = 2;
    /** After every entry is done, delete what each sent directory holds at the destination and the source does not. */
    int DELETE = 4;
    /** Skip a file whose target exists with the source's size and SHA-256 (its blocks are compared by hash, not sent). */
    int SKIP_EXISTING_CHECKSUM = 8;

    /** Segment kinds: bytes in the window; a hash only (the server holds the block durably); a hole (zeros, not sent). */
    int DATA = 0;
    int HASH_ONLY = 1;
    int HOLE = 2;

    /** Entry kinds of a FILES batch; KEEP names an entry an earlier attempt of the same copy verified (DELETE leaves it). */
    enum Kind { FILE, DIRECTORY, SYMLINK, KEEP }

    /** @param copyId the same for every run of the same command: a rerun takes over what an earlier run left open */
    record Hello(long copyId, String destination, int blockSize, int flags) implements Message {
    }

    record Ready(int slots, int slotSize) implements Message {
    }

    record Error(String reason) implements Message {
    }

    /**
     * One tree entry.
     *
     * @param path    relative, '/'-separated
     * @param mtimeNs modification time, ns since the epoch
     * @param target  a symlink's target, else empty
     */
    record Entry(int id, Kind kind, String path, long size, int mode, long mtimeNs, String target) implements Message {
    }

    record Files(List<Entry> entries) implements Message {
    }

    /** @param durable blocks the server already holds durably (their hashes come as HASH_ONLY segments) */
    record Plan(int fileId, int blocks, BitSet durable) implements Message {
    }

    record Grant(int slot, long address, int rkey, int length) implements Message {
    }

    /** @param offset where in the window its bytes start (DATA only) */
    record Segment(int fileId, int block, int offset, int length, int kind, byte[] hash) implements Message {
    }

    /** @param digest SHA-256 over the file's block hashes in order */
    record FileEnd(int fileId, int blocks, byte[] digest) implements Message {
    }

    /** @param slot the window the preceding WRITE filled, or -1 when no segment carries data */
    record Chunk(int slot, List<Segment> segments, List<FileEnd> ends) implements Message {
    }

    record FileDone(int fileId, boolean verified, String reason) implements Message {
    }

    /** @param placedBadly the placed bytes did not hash to the sender's hash (else the source changed since the block was journaled) */
    record Resend(int fileId, int block, boolean placedBadly) implements Message {
    }

    /** @param sources paths under the served root, '/'-separated */
    record Pull(long copyId, List<String> sources, int blockSize, int flags) implements Message {
    }

    record End() implements Message {
    }

    /** @param globs names or relative paths that deletion leaves alone, as {@code --exclude} matches them */
    record Protect(List<String> globs) implements Message {
    }

    /**
     * @param skipped files left alone because their target already matched
     * @param deleted entries deleted at the destination (DELETE)
     */
    record Summary(long bytesWritten, int repaired, int hashesVerified, int skipped, int deleted) implements Message {
    }
}
