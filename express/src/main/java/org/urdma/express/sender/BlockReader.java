package org.urdma.express.sender;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.urdma.express.hash.Sha256;
import org.urdma.express.hash.ZeroBlocks;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.protocol.ControlLimits;
import org.urdma.express.protocol.Message;
import org.urdma.express.staging.StagingRing;
import org.urdma.express.tree.SparseExtents;
import org.urdma.express.tree.TreeEntry;

/**
 * A reader thread: reads source blocks with positional I/O into staging windows, hashes each as it is read, and
 * packs blocks of small files together into one window, so many small files share one WRITE. Holes are neither
 * read nor sent; blocks the server holds durably are read and hashed only (the server compares the hash).
 */
final class BlockReader implements Runnable {
    private final BlockingQueue<ReadTask> tasks;
    private final Queue<Object> out;
    private final StagingRing ring;
    private final int blockSize;
    private final boolean wholeFileHash;
    private final Map<Integer, byte[]> wholeHashes;
    private final TransferCounters counters;
    private final Runnable wake;
    private final ByteBuffer scratch;
    private volatile boolean stop;

    private int slot = -1;
    private int used;
    private List<Message.Segment> segments = new ArrayList<>();
    private List<Message.FileEnd> ends = new ArrayList<>();

    BlockReader(BlockingQueue<ReadTask> tasks, Queue<Object> out, StagingRing ring, boolean wholeFileHash, Map<Integer, byte[]> wholeHashes,
                TransferCounters counters, Runnable wake) {
        this.tasks = tasks;
        this.out = out;
        this.ring = ring;
        this.blockSize = ring.slotSize();
        this.wholeFileHash = wholeFileHash;
        this.wholeHashes = wholeHashes;
        this.counters = counters;
        this.wake = wake;
        this.scratch = ByteBuffer.allocateDirect(blockSize);
    }

    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        try {
            while (!stop) {
                ReadTask t = tasks.poll();
                if (t == null) {
                    flush();
                    t = tasks.poll(5, TimeUnit.MILLISECONDS);
                    if (t == null) continue;
                }
                int id = switch (t) {
                    case ReadTask.WholeFile w -> w.id();
                    case ReadTask.OneBlock o -> o.id();
                };
                TreeEntry e = switch (t) {
                    case ReadTask.WholeFile w -> w.entry();
                    case ReadTask.OneBlock o -> o.entry();
                };
                try {
                    switch (t) {
                        case ReadTask.WholeFile w -> file(w);
                        case ReadTask.OneBlock o -> block(o);
                    }
                } catch (IOException | RuntimeException ex) {
                    out.add(new ReadFailure(id, e.relative(), ex.getMessage() == null ? ex.toString() : ex.getMessage()));
                    wake.run();
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    private int blocks(long size) {
        return (int) ((size + blockSize - 1) / blockSize);
    }

    private void file(ReadTask.WholeFile w) throws IOException, InterruptedException {
        TreeEntry e = w.entry();
        MessageDigest whole = wholeFileHash ? Sha256.newDigest() : null;
        byte[][] hashes = new byte[w.blocks()][];
        try (FileChannel ch = FileChannel.open(e.source(), StandardOpenOption.READ)) {
            SparseExtents extents = SparseExtents.of(e.source(), e.size());
            for (int b = 0; b < w.blocks(); b++) {
                long off = (long) b * blockSize;
                int len = (int) Math.min(blockSize, e.size() - off);
                byte[] h;
                int kind;
                int at = 0;
                if (!extents.hasData(off, off + len)) {
                    h = ZeroBlocks.hash(len);
                    if (whole != null) ZeroBlocks.feed(whole, len);
                    kind = Message.HOLE;
                } else if (w.durable().get(b)) {
                    ByteBuffer s = scratch.clear().limit(len);
                    readFully(ch, s, off, e);
                    s.flip();
                    h = Sha256.of(s);
                    if (whole != null) whole.update(s);
                    kind = Message.HASH_ONLY;
                } else {
                    room(len);
                    ByteBuffer v = ring.view(slot, used, len);
                    readFully(ch, v, off, e);
                    v.flip();
                    h = Sha256.of(v);
                    if (whole != null) whole.update(v);
                    kind = Message.DATA;
                    at = used;
                    used += len;
                }
                counters.hashesComputed.incrementAndGet();
                hashes[b] = h;
                segments.add(new Message.Segment(w.id(), b, at, len, kind, h));
                if (segments.size() >= ControlLimits.MAX_SEGMENTS) flush();
            }
        }
        unchanged(e);
        ends.add(new Message.FileEnd(w.id(), w.blocks(), Sha256.overBlocks(hashes)));
        if (whole != null) wholeHashes.put(w.id(), whole.digest());
        if (ends.size() >= ControlLimits.MAX_FILE_ENDS) flush();
    }

    private void block(ReadTask.OneBlock o) throws IOException, InterruptedException {
        TreeEntry e = o.entry();
        long off = (long) o.block() * blockSize;
        int len = (int) Math.min(blockSize, e.size() - off);
        try (FileChannel ch = FileChannel.open(e.source(), StandardOpenOption.READ)) {
            room(len);
            ByteBuffer v = ring.view(slot, used, len);
            readFully(ch, v, off, e);
            v.flip();
            byte[] h = Sha256.of(v);
            counters.hashesComputed.incrementAndGet();
            segments.add(new Message.Segment(o.id(), o.block(), used, len, Message.DATA, h));
            used += len;
        }
        unchanged(e);
        if (segments.size() >= ControlLimits.MAX_SEGMENTS) flush();
    }

    /** {@return the SHA-256 of a whole file, read in order} */
    static byte[] wholeFileHash(java.nio.file.Path file) throws IOException {
        MessageDigest whole = Sha256.newDigest();
        ByteBuffer s = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(s.clear()) >= 0) whole.update(s.flip());
        }
        return whole.digest();
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long off, TreeEntry e) throws IOException {
        long at = off;
        while (b.hasRemaining()) {
            int n = ch.read(b, at);
            if (n < 0) throw new IOException("changed while being read (shorter than " + e.size() + " bytes)");
            at += n;
        }
    }

    /** The source must still be the version the walk saw: a rerun sends a changed file again from its start. */
    private static void unchanged(TreeEntry e) throws IOException {
        long size = Files.size(e.source());
        FileTime m = Files.getLastModifiedTime(e.source(), LinkOption.NOFOLLOW_LINKS);
        if (size != e.size() || m.to(TimeUnit.NANOSECONDS) != e.mtimeNs()) throw new IOException("changed while being read");
    }

    /** Makes room for {@code len} bytes in the open window, flushing it and taking a new one when it is full. */
    private void room(int len) throws InterruptedException {
        if (slot >= 0 && used + len > blockSize) flush();
        while (slot < 0 && !stop) {
            slot = ring.take(10_000_000);
            used = 0;
        }
        if (slot < 0) throw new IllegalStateException("reader stopped");
    }

    private void flush() {
        if (segments.isEmpty() && ends.isEmpty()) return;
        out.add(new ReadyChunk(used > 0 ? slot : -1, used, segments, ends));
        if (used == 0 && slot >= 0) ring.give(slot);
        slot = -1;
        used = 0;
        segments = new ArrayList<>();
        ends = new ArrayList<>();
        wake.run();
    }
}
