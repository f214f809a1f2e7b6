package org.urdma.express.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import org.urdma.express.protocol.MessageCodec;

/**
 * Which blocks of a part file are durable, and their hashes: a header naming the source version it belongs to
 * (size, mtime, block size), then one record per block, appended only after the part file's fdatasync, so a record
 * never names bytes a crash could lose. A header that does not match the source starts the file again; a torn
 * last record is ignored (that block is sent again).
 */
public final class BlockJournal implements AutoCloseable {
    private static final int MAGIC = 0x55584A31;
    private static final int HEADER = 4 + 8 + 8 + 4 + 4;
    private static final int RECORD = 4 + MessageCodec.HASH;

    private final FileChannel channel;
    private final BitSet durable;
    private final byte[][] hashes;
    private final ByteBuffer record = ByteBuffer.allocate(RECORD);

    private BlockJournal(FileChannel channel, BitSet durable, byte[][] hashes) {
        this.channel = channel;
        this.durable = durable;
        this.hashes = hashes;
    }

    /**
     * Opens the journal at {@code path} for a source of this version, keeping its records if they belong to it and
     * starting it empty otherwise ({@link #resumed()} says which).
     */
    public static BlockJournal open(Path path, long size, long mtimeNs, int blockSize, int blocks) throws IOException {
        BitSet durable = new BitSet(blocks);
        byte[][] hashes = new byte[blocks][];
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        boolean keep = false;
        if (ch.size() >= HEADER) {
            ByteBuffer h = ByteBuffer.allocate(HEADER);
            ch.read(h, 0);
            h.flip();
            keep = h.getInt() == MAGIC && h.getLong() == size && h.getLong() == mtimeNs && h.getInt() == blockSize && h.getInt() == blocks;
        }
        if (keep) {
            long records = (ch.size() - HEADER) / RECORD;
            ByteBuffer all = ByteBuffer.allocate((int) (records * RECORD));
            ch.read(all, HEADER);
            all.flip();
            for (long i = 0; i < records; i++) {
                int b = all.getInt();
                byte[] hash = new byte[MessageCodec.HASH];
                all.get(hash);
                if (b >= 0 && b < blocks) {
                    durable.set(b);
                    hashes[b] = hash;
                }
            }
            ch.truncate(HEADER + records * RECORD); // a torn record's bytes go
            ch.position(ch.size());
        } else {
            ch.truncate(0);
            ByteBuffer h = ByteBuffer.allocate(HEADER).putInt(MAGIC).putLong(size).putLong(mtimeNs).putInt(blockSize).putInt(blocks).flip();
            ch.write(h, 0);
            ch.position(HEADER);
        }
        return new BlockJournal(ch, durable, hashes);
    }

    /** {@return whether durable blocks were found for this source version} */
    public boolean resumed() {
        return !durable.isEmpty();
    }

    /** {@return the durable blocks (a copy)} */
    public synchronized BitSet durable() {
        return (BitSet) durable.clone();
    }

    /** {@return the hash recorded for a durable block, or null} */
    public synchronized byte[] hash(int block) {
        return hashes[block];
    }

    /** Records a block as durable; the caller has made the part file's bytes durable first. */
    public synchronized void append(int block, byte[] hash) throws IOException {
        record.clear().putInt(block).put(hash).flip();
        while (record.hasRemaining()) channel.write(record);
        durable.set(block);
        hashes[block] = hash;
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }

    /** Removes a journal once its file is in place. */
    public static void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }
}
