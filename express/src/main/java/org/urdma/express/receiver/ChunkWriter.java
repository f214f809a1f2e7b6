package org.urdma.express.receiver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.urdma.express.hash.Sha256;
import org.urdma.express.protocol.MalformedMessageException;
import org.urdma.express.protocol.Message;
import org.urdma.express.tree.FileModes;

/**
 * Takes one CHUNK on an I/O thread: hashes each block from the bytes placed in the window and re-requests one whose
 * hash differs; writes the good ones with positional I/O (all-zero pages skipped, so holes stay holes); makes them
 * durable (fdatasync) and only then journals them; gives the window back; and finishes every file whose blocks are
 * all verified: digest check, optional re-read, mode and mtime, rename into place, directory fsync.
 */
final class ChunkWriter {
    private static final int PAGE = 4096;
    private final SessionState s;

    ChunkWriter(SessionState s) {
        this.s = s;
    }

    private record Placed(IncomingFile file, int block, byte[] hash) {
    }

    void write(Message.Chunk c) throws IOException {
        Map<IncomingFile, List<Placed>> placed = new LinkedHashMap<>();
        Set<IncomingFile> touched = new LinkedHashSet<>();
        Map<IncomingFile, FileChannel> open = new LinkedHashMap<>();
        try {
            for (Message.Segment seg : c.segments()) {
                IncomingFile f = file(seg.fileId());
                if (seg.block() >= f.blocks) throw new MalformedMessageException("CHUNK names block " + seg.block() + " of a file of " + f.blocks);
                long off = (long) seg.block() * s.blockSize;
                int expect = (int) Math.min(s.blockSize, f.entry.size() - off);
                if (seg.length() != expect) throw new MalformedMessageException("CHUNK block " + seg.block() + " has " + seg.length() + " bytes, " + expect + " expected");
                touched.add(f);
                switch (seg.kind()) {
                    case Message.DATA -> {
                        ByteBuffer v = s.ring.view(c.slot(), seg.offset(), seg.length());
                        s.hooks.beforeBlockCheck(f.entry.path(), seg.block(), v.duplicate());
                        byte[] h = Sha256.of(v);
                        if (!Arrays.equals(h, seg.hash())) {
                            s.repaired.incrementAndGet();
                            s.reply(new Message.Resend(seg.fileId(), seg.block(), true));
                            continue;
                        }
                        s.hashesVerified.incrementAndGet();
                        FileChannel ch = open.get(f);
                        if (ch == null) {
                            ch = FileChannel.open(f.part, StandardOpenOption.WRITE);
                            open.put(f, ch);
                        }
                        writeSparse(ch, v, off);
                        s.bytesWritten.addAndGet(seg.length());
                        placed.computeIfAbsent(f, k -> new ArrayList<>()).add(new Placed(f, seg.block(), h));
                        if (f.existing != null) f.replaced(seg.block());
                    }
                    case Message.HASH_ONLY -> {
                        byte[] known = f.existing != null ? f.existing[seg.block()] : f.journal == null ? null : f.journal.hash(seg.block());
                        if (known != null && Arrays.equals(known, seg.hash())) {
                            f.verified(seg.block(), known);
                        } else {
                            // the source's block changed since it was journaled, or differs from the existing target's
                            s.reply(new Message.Resend(seg.fileId(), seg.block(), false));
                        }
                    }
                    default -> { // a hole: the part file already reads zeros there
                        if (f.existing != null && !Arrays.equals(f.existing[seg.block()], seg.hash())) f.replaced(seg.block());
                        f.verified(seg.block(), seg.hash());
                    }
                }
            }
            for (Map.Entry<IncomingFile, FileChannel> e : open.entrySet()) {
                e.getValue().force(false); // durable before the journal says so
                for (Placed p : placed.getOrDefault(e.getKey(), List.of())) {
                    if (p.file().journal != null) p.file().journal.append(p.block(), p.hash());
                    p.file().verified(p.block(), p.hash());
                }
            }
        } finally {
            for (FileChannel ch : open.values()) ch.close();
            if (c.slot() >= 0) {
                s.reply(new Message.Grant(c.slot(), s.ring.address(c.slot()), s.ring.region().rkey(), s.ring.slotSize()));
            }
        }
        for (Message.FileEnd end : c.ends()) {
            IncomingFile f = file(end.fileId());
            if (end.blocks() != f.blocks) throw new MalformedMessageException("CHUNK ends file " + end.fileId() + " with " + end.blocks() + " blocks, " + f.blocks + " planned");
            f.end(end.digest());
            touched.add(f);
        }
        Set<Path> dirs = new LinkedHashSet<>();
        for (IncomingFile f : touched) finish(f, dirs);
        for (Path d : dirs) fsyncDirectory(d);
    }

    private IncomingFile file(int id) {
        IncomingFile f = s.files.get(id);
        if (f == null) throw new MalformedMessageException("CHUNK names file " + id + ", which has no plan");
        return f;
    }

    /** Writes the block, skipping whole zero pages (the part file was sized with holes). */
    static void writeSparse(FileChannel ch, ByteBuffer v, long fileOffset) throws IOException {
        int n = v.remaining();
        int runStart = -1;
        for (int at = 0; at < n; at += PAGE) {
            int len = Math.min(PAGE, n - at);
            boolean zero = zero(v, at, len);
            if (!zero && runStart < 0) runStart = at;
            if (zero && runStart >= 0) {
                writeAt(ch, v, runStart, at - runStart, fileOffset);
                runStart = -1;
            }
        }
        if (runStart >= 0) writeAt(ch, v, runStart, n - runStart, fileOffset);
    }

    private static boolean zero(ByteBuffer v, int at, int len) {
        int i = at;
        for (; i + 8 <= at + len; i += 8) if (v.getLong(i) != 0) return false;
        for (; i < at + len; i++) if (v.get(i) != 0) return false;
        return true;
    }

    private static void writeAt(FileChannel ch, ByteBuffer v, int from, int len, long fileOffset) throws IOException {
        ByteBuffer b = v.slice(from, len);
        long pos = fileOffset + from;
        while (b.hasRemaining()) pos += ch.write(b, pos);
    }

    private void finish(IncomingFile f, Set<Path> dirs) {
        byte[][] hashes = f.takeComplete();
        if (hashes == null) return;
        try {
            if (!Arrays.equals(Sha256.overBlocks(hashes), f.endDigest())) {
                throw new IOException("file digest differs from the sender's");
            }
            if (f.existing != null) {
                java.util.BitSet replaced = f.replacedBlocks();
                if (replaced.isEmpty()) { // the target is the source's bytes: left alone
                    Files.deleteIfExists(f.part);
                    s.files.remove(f.entry.id());
                    s.skipped.incrementAndGet();
                    s.done(f.entry, true, "exists");
                    return;
                }
                ExistingBlocks.copyUnchanged(f.target, f.part, f.entry.size(), s.blockSize, replaced);
            }
            if ((s.flags & Message.VERIFY_REREAD) != 0) reread(f, hashes);
            if (f.journal != null) f.journal.close();
            try (FileChannel ch = FileChannel.open(f.part, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            FileModes.apply(f.part, f.entry.mode(), f.entry.mtimeNs(), false);
            Files.move(f.part, f.target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.deleteIfExists(f.journalPath);
            dirs.add(f.target.getParent());
            s.files.remove(f.entry.id());
            s.done(f.entry, true, "");
        } catch (IOException | RuntimeException e) {
            s.files.remove(f.entry.id());
            s.done(f.entry, false, e.getMessage());
        }
    }

    private void reread(IncomingFile f, byte[][] hashes) throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(s.blockSize);
        try (FileChannel ch = FileChannel.open(f.part, StandardOpenOption.READ)) {
            ch.force(false);
            for (int i = 0; i < f.blocks; i++) {
                long off = (long) i * s.blockSize;
                b.clear().limit((int) Math.min(s.blockSize, f.entry.size() - off));
                while (b.hasRemaining()) if (ch.read(b, off + b.position()) < 0) throw new IOException("re-read: part file is short");
                if (!Arrays.equals(Sha256.of(b.flip()), hashes[i])) {
                    Files.deleteIfExists(f.journalPath); // a rerun sends the file again
                    throw new IOException("re-read: block " + i + " differs on disk");
                }
            }
        }
    }

    static void fsyncDirectory(Path d) throws IOException {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
