package org.urdma.express.sender;

import java.util.BitSet;
import org.urdma.express.tree.TreeEntry;

/** Work for the reader threads. */
sealed interface ReadTask {
    /** Read, hash and send a file's blocks; {@code durable} ones go as hashes only. */
    record WholeFile(int id, TreeEntry entry, int blocks, BitSet durable) implements ReadTask {
    }

    /** Read and send one block again. */
    record OneBlock(int id, TreeEntry entry, int block) implements ReadTask {
    }
}
