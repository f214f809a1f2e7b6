package org.urdma.transport.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class PcapRoundTripTest {
    @Test
    void nanosecondFileRoundTripsRecordsAndTimestamps() throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final SplittableRandom r = new SplittableRandom(1);
        final byte[][] frames = new byte[50][];
        final long[] ts = new long[50];
        try (PcapWriter w = new PcapWriter(bytes, 65535)) {
            for (int i = 0; i < frames.length; i++) {
                frames[i] = new byte[60 + r.nextInt(9000)];
                r.nextBytes(frames[i]);
                ts[i] = 1_700_000_000_123_456_789L + i * 1_001L;
                w.write(ts[i], new UnsafeBuffer(frames[i]), 0, frames[i].length);
            }
        }
        final byte[] file = bytes.toByteArray();
        assertEquals(0xA1B23C4D, ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        try (PcapReader rd = new PcapReader(new ByteArrayInputStream(file))) {
            assertTrue(rd.nanosecondTimestamps());
            assertEquals(1, rd.linkType());
            for (int i = 0; i < frames.length; i++) {
                assertTrue(rd.next());
                assertEquals(ts[i], rd.timestampNanos());
                assertEquals(frames[i].length, rd.capturedLength());
                assertEquals(frames[i].length, rd.originalLength());
                assertArrayEquals(frames[i], rd.bytes());
            }
            assertFalse(rd.next());
        }
    }

    @Test
    void readsBigEndianMicrosecondFilesAndRejectsGarbage() throws IOException {
        final ByteBuffer b = ByteBuffer.allocate(24 + 16 + 3).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0xA1B2C3D4).putShort((short)2).putShort((short)4).putInt(0).putInt(0).putInt(65535).putInt(1);
        b.putInt(10).putInt(250_000).putInt(3).putInt(64).put(new byte[] { 1, 2, 3 });
        try (PcapReader rd = new PcapReader(new ByteArrayInputStream(b.array()))) {
            assertFalse(rd.nanosecondTimestamps());
            assertEquals(ByteOrder.BIG_ENDIAN, rd.byteOrder());
            assertTrue(rd.next());
            assertEquals(10_250_000_000L, rd.timestampNanos());
            assertEquals(64, rd.originalLength());
            assertArrayEquals(new byte[] { 1, 2, 3 }, rd.bytes());
            assertFalse(rd.next());
        }
        assertThrows(IOException.class, () -> new PcapReader(new ByteArrayInputStream(new byte[24])));
        final byte[] truncated = java.util.Arrays.copyOf(b.array(), b.array().length - 1);
        try (PcapReader rd = new PcapReader(new ByteArrayInputStream(truncated))) {
            assertThrows(IOException.class, rd::next);
        }
    }

    @Test
    void snapLengthCutsCapturedBytesButKeepsOriginalLength() throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(bytes, 100)) {
            w.write(5, new UnsafeBuffer(new byte[300]), 0, 300);
        }
        try (PcapReader rd = new PcapReader(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertTrue(rd.next());
            assertEquals(100, rd.capturedLength());
            assertEquals(300, rd.originalLength());
            assertEquals(5, rd.timestampNanos());
        }
    }
}
