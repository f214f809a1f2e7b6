package org.urdma.express.receiver;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.BitSet;
import org.urdma.express.journal.BlockJournal;
import org.urdma.express.protocol.Message;
import org.urdma.express.safety.PathRefusedException;
import org.urdma.express.safety.SafePaths;
import org.urdma.express.tree.FileModes;

/**
 * Takes a batch of entries on an I/O thread: refuses unsafe names, makes directories and symlinks, and for each file
 * opens its part file and journal and answers with a plan naming the blocks already durable (a resumed file) or none.
 */
final class EntryPlanner {
    private final SessionState s;

    EntryPlanner(SessionState s) {
        this.s = s;
    }

    void plan(Message.Files batch) {
        s.entriesSeen.addAndGet(batch.entries().size());
        for (Message.Entry e : batch.entries()) {
            if ((s.flags & Message.DELETE) != 0) s.seen.add(e.path());
            try {
                switch (e.kind()) {
                    case DIRECTORY -> directory(e);
                    case SYMLINK -> symlink(e);
                    case FILE -> file(e);
                    case KEEP -> s.done(e, true, "");
                }
            } catch (PathRefusedException ex) {
                s.done(e, false, "refused: " + ex.getMessage());
            } catch (IOException | RuntimeException ex) {
                s.done(e, false, ex.getClass().getSimpleName() + ": " + ex.getMessage());
            }
        }
    }

    private void directory(Message.Entry e) throws IOException {
        Path p = s.safe.resolve(s.destination, e.path());
        if (Files.isSymbolicLink(p)) Files.delete(p); // a link where a directory goes would lead writes elsewhere
        Files.createDirectories(p);
        s.directories.add(e);
        s.done(e, true, "");
    }

    private void symlink(Message.Entry e) throws IOException {
        SafePaths.checkLinkTarget(e.path(), e.target());
        Path p = s.safe.resolve(s.destination, e.path());
        Files.createDirectories(p.getParent());
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) Files.delete(p);
        Files.createSymbolicLink(p, Path.of(e.target()));
        FileModes.apply(p, e.mode(), e.mtimeNs(), true);
        s.done(e, true, "");
    }

    private void file(Message.Entry e) throws IOException {
        Path target = s.safe.resolve(s.destination, e.path());
        boolean sameSize = Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == e.size();
        if ((s.flags & Message.SKIP_EXISTING_SIZE) != 0 && sameSize) {
            s.skipped.incrementAndGet();
            s.done(e, true, "exists");
            return;
        }
        Files.createDirectories(target.getParent());
        Files.createDirectories(s.parts.directory());
        int blocks = (int) ((e.size() + s.blockSize - 1) / s.blockSize);
        if (blocks > org.urdma.express.protocol.ControlLimits.MAX_BLOCKS) {
            throw new IllegalArgumentException("file of " + e.size() + " bytes has more than " + org.urdma.express.protocol.ControlLimits.MAX_BLOCKS
                    + " blocks; use a larger --block-size");
        }
        Path part = s.parts.part(e.path());
        Path journalPath = s.parts.journal(e.path());
        BlockJournal journal = null;
        BitSet durable = new BitSet();
        byte[][] existing = null;
        if ((s.flags & Message.SKIP_EXISTING_CHECKSUM) != 0 && sameSize && Files.notExists(journalPath)) {
            // the sender sends every block's hash only; a block whose hash differs travels, the rest are the target's
            existing = ExistingBlocks.hashes(target, e.size(), s.blockSize, blocks);
            durable.set(0, blocks);
            Files.deleteIfExists(part);
        } else if (blocks > 1) {
            journal = BlockJournal.open(journalPath, e.size(), e.mtimeNs(), s.blockSize, blocks);
            if (journal.resumed() && Files.isRegularFile(part) && Files.size(part) == e.size()) {
                durable = journal.durable();
            } else if (journal.resumed()) {
                journal.close(); // its part file is gone or of another size: start again
                Files.delete(journalPath);
                journal = BlockJournal.open(journalPath, e.size(), e.mtimeNs(), s.blockSize, blocks);
            }
        } else {
            Files.deleteIfExists(journalPath);
        }
        if (durable.isEmpty() || existing != null) {
            // a fresh part of the source's size: holes until blocks land, so a sparse source stays sparse
            try (RandomAccessFile f = new RandomAccessFile(part.toFile(), "rw")) {
                f.setLength(0);
                f.setLength(e.size());
            }
        }
        IncomingFile f = new IncomingFile(e, target, part, journalPath, blocks, journal, existing);
        s.files.put(e.id(), f);
        s.reply(new Message.Plan(e.id(), blocks, durable));
    }
}
