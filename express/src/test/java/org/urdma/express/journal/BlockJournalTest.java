package org.urdma.express.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockJournalTest {
    @TempDir
    Path tmp;

    private static byte[] hash(int b) {
        byte[] h = new byte[32];
        h[0] = (byte) b;
        return h;
    }

    @Test
    void durableBlocksSurviveAReopenForTheSameSourceAndATornRecordIsDropped() throws Exception {
        Path j = tmp.resolve("f.journal");
        try (BlockJournal w = BlockJournal.open(j, 1000, 5, 65536, 4)) {
            assertFalse(w.resumed());
            w.append(1, hash(1));
            w.append(3, hash(3));
        }
        try (FileChannel ch = FileChannel.open(j, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, 2, 9})); // a record cut by a crash
        }
        try (BlockJournal r = BlockJournal.open(j, 1000, 5, 65536, 4)) {
            assertTrue(r.resumed());
            assertEquals("{1, 3}", r.durable().toString());
            assertArrayEquals(hash(3), r.hash(3));
        }
    }

    @Test
    void aChangedSourceStartsTheJournalAgain() throws Exception {
        Path j = tmp.resolve("f.journal");
        try (BlockJournal w = BlockJournal.open(j, 1000, 5, 65536, 4)) {
            w.append(0, hash(0));
        }
        try (BlockJournal r = BlockJournal.open(j, 1000, 6, 65536, 4)) {
            assertFalse(r.resumed(), "another mtime is another source");
        }
        try (BlockJournal r = BlockJournal.open(j, 1000, 6, 65536, 4)) {
            assertFalse(r.resumed(), "and its old records are gone");
        }
    }
}
