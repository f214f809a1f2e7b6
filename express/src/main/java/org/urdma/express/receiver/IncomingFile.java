package org.urdma.express.receiver;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import org.urdma.express.journal.BlockJournal;
import org.urdma.express.protocol.Message;

/**
 * A file being received: where it goes, its part file and journal, which blocks are verified and durable with their
 * hashes, and the sender's digest once its last block went. Reached from several writer threads.
 */
final class IncomingFile {
    final Message.Entry entry;
    final Path target;
    final Path part;
    final Path journalPath;
    final int blocks;
    /** Null for a file of one block or none: resending it costs no more than journaling it. */
    final BlockJournal journal;
    /** The target's block hashes when it may be left alone ({@code --skip-existing checksum}), else null. */
    final byte[][] existing;
    /** Of an existing target, the blocks that differ from the source's (written into the part file). */
    private final BitSet replaced = new BitSet();
    private final BitSet verified = new BitSet();
    private final byte[][] hashes;
    private byte[] endDigest;
    private boolean finished;

    IncomingFile(Message.Entry entry, Path target, Path part, Path journalPath, int blocks, BlockJournal journal, byte[][] existing) {
        this.existing = existing;
        this.entry = entry;
        this.target = target;
        this.part = part;
        this.journalPath = journalPath;
        this.blocks = blocks;
        this.journal = journal;
        this.hashes = new byte[blocks][];
    }

    synchronized void verified(int block, byte[] hash) {
        verified.set(block);
        hashes[block] = hash;
    }

    synchronized void replaced(int block) {
        replaced.set(block);
    }

    /** {@return the blocks of an existing target that differ from the source's} */
    synchronized BitSet replacedBlocks() {
        return (BitSet) replaced.clone();
    }

    synchronized void end(byte[] digest) {
        endDigest = digest;
    }

    /** {@return the block hashes in order when every block is verified and the end arrived, once; else null} */
    synchronized byte[][] takeComplete() {
        if (finished || endDigest == null || verified.cardinality() < blocks) return null;
        finished = true;
        return Arrays.copyOf(hashes, blocks);
    }

    synchronized byte[] endDigest() {
        return endDigest;
    }

    synchronized boolean finished() {
        return finished;
    }
}
