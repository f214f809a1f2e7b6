package org.urdma.express.receiver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.urdma.express.hash.Sha256;

/** The block hashes of a file already at the target ({@code --skip-existing checksum}), read on an I/O thread. */
final class ExistingBlocks {
    private ExistingBlocks() {
    }

    static byte[][] hashes(Path target, long size, int blockSize, int blocks) throws IOException {
        byte[][] out = new byte[blocks][];
        ByteBuffer b = ByteBuffer.allocateDirect(blockSize);
        try (FileChannel ch = FileChannel.open(target, StandardOpenOption.READ)) {
            for (int i = 0; i < blocks; i++) {
                long off = (long) i * blockSize;
                b.clear().limit((int) Math.min(blockSize, size - off));
                while (b.hasRemaining()) if (ch.read(b, off + b.position()) < 0) throw new IOException("target shrank while being hashed");
                out[i] = Sha256.of(b.flip());
            }
        }
        return out;
    }

    /** Copies the blocks not in {@code replaced} from the target into the part file, so it holds the whole file. */
    static void copyUnchanged(Path target, Path part, long size, int blockSize, java.util.BitSet replaced) throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(blockSize);
        int blocks = (int) ((size + blockSize - 1) / blockSize);
        try (FileChannel in = FileChannel.open(target, StandardOpenOption.READ); FileChannel out = FileChannel.open(part, StandardOpenOption.WRITE)) {
            for (int i = replaced.nextClearBit(0); i < blocks; i = replaced.nextClearBit(i + 1)) {
                long off = (long) i * blockSize;
                b.clear().limit((int) Math.min(blockSize, size - off));
                while (b.hasRemaining()) if (in.read(b, off + b.position()) < 0) throw new IOException("target shrank while being copied");
                b.flip();
                ChunkWriter.writeSparse(out, b, off);
            }
            out.force(false);
        }
    }
}
