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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pcapng as Wireshark and dumpcap write it: our writer's blocks, and the reader on blocks and orders we do not write. */
class PcapngTest {
    @TempDir
    Path dir;

    private static byte[][] frames(final int n) {
        final SplittableRandom r = new SplittableRandom(7);
        final byte[][] frames = new byte[n][];
        for (int i = 0; i < n; i++) {
            frames[i] = new byte[60 + r.nextInt(1500)]; // odd lengths too: EPB pads to 4 bytes
            r.nextBytes(frames[i]);
        }
        return frames;
    }

    private static byte[] write(final byte[][] frames, final long[] ts) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(bytes, 65535, PcapWriter.Format.PCAPNG)) {
            for (int i = 0; i < frames.length; i++) {
                w.write(ts[i], new UnsafeBuffer(frames[i]), 0, frames[i].length);
            }
        }
        return bytes.toByteArray();
    }

    @Test
    void ourPcapngHasASectionAnInterfaceWithNanosecondsAndReadsBack() throws IOException {
        final byte[][] frames = frames(40);
        final long[] ts = new long[frames.length];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = 1_700_000_000_123_456_789L + i * 1_001L;
        }
        final byte[] file = write(frames, ts);
        final ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x0A0D0D0A, b.getInt(0));
        assertEquals(0x1A2B3C4D, b.getInt(8));
        assertEquals(1, b.getInt(28)); // IDB
        assertEquals(1, b.getShort(36)); // LINKTYPE_ETHERNET
        assertEquals(9, b.getShort(44)); // if_tsresol
        assertEquals(9, file[48]);
        try (PcapReader rd = new PcapReader(new ByteArrayInputStream(file))) {
            assertTrue(rd.pcapng());
            for (int i = 0; i < frames.length; i++) {
                assertTrue(rd.next());
                assertEquals(1, rd.linkType());
                assertEquals(ts[i], rd.timestampNanos());
                assertEquals(frames[i].length, rd.originalLength());
                assertArrayEquals(frames[i], rd.bytes());
            }
            assertFalse(rd.next());
        }
    }

    /** Blocks in big-endian order as a big-endian host writes them, microsecond default resolution, SPB and NRB. */
    @Test
    void bigEndianSectionsWithSimplePacketsOtherBlocksAndTwoInterfacesAreRead() throws IOException {
        final byte[] f1 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        final byte[] f2 = new byte[64];
        java.util.Arrays.fill(f2, (byte)0x5a);
        final ByteBuffer b = ByteBuffer.allocate(1024).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short)1).putShort((short)0).putLong(-1).putInt(28);
        b.putInt(1).putInt(20).putShort((short)1).putShort((short)0).putInt(0).putInt(20); // IDB 0: no options (usec)
        b.putInt(1).putInt(32).putShort((short)1).putShort((short)0).putInt(40)           // IDB 1: snaplen 40, 2^-10 s
            .putShort((short)9).putShort((short)1).put((byte)0x8a).put(new byte[3]).putInt(0).putInt(32);
        b.putInt(4).putInt(16).putInt(0).putInt(16);                                       // NRB, empty: skipped
        b.putInt(6).putInt(32 + 16).putInt(0).putInt(0).putInt(1_500_000).putInt(15).putInt(15).put(f1).put((byte)0).putInt(48);
        b.putInt(6).putInt(32 + 40).putInt(1).putInt(0).putInt(3 << 10 | 512).putInt(40).putInt(64).put(f2, 0, 40).putInt(72);
        b.putInt(3).putInt(16 + 64).putInt(64).put(f2).putInt(80);                         // SPB on interface 0
        final byte[] file = java.util.Arrays.copyOf(b.array(), b.position());
        try (PcapReader rd = new PcapReader(new ByteArrayInputStream(file))) {
            assertTrue(rd.next());
            assertEquals(ByteOrder.BIG_ENDIAN, rd.byteOrder());
            assertEquals(1_500_000_000L, rd.timestampNanos()); // 1.5 s in microseconds
            assertArrayEquals(f1, rd.bytes());
            assertTrue(rd.next());
            assertEquals(3_500_000_000L, rd.timestampNanos()); // 3.5 s in 1/1024 s
            assertEquals(40, rd.capturedLength());
            assertEquals(64, rd.originalLength());
            assertEquals(40, rd.snapLength());
            assertTrue(rd.next());
            assertArrayEquals(f2, rd.bytes());
            assertFalse(rd.next());
        }
    }

    @Test
    void aTruncatedOrCorruptBlockIsNamed() {
        final byte[] file = java.util.Arrays.copyOf(writeQuietly(), 28 + 32 + 20);
        final IOException e = assertThrows(IOException.class, () -> {
            try (PcapReader rd = new PcapReader(new ByteArrayInputStream(file))) {
                rd.next();
            }
        });
        assertTrue(e.getMessage().startsWith("pcap: truncated"), e.getMessage());
        final byte[] text = "hello, this is not a capture".getBytes(StandardCharsets.US_ASCII);
        final IOException bad = assertThrows(IOException.class, () -> new PcapReader(new ByteArrayInputStream(text)));
        assertTrue(bad.getMessage().startsWith("not a capture file: bad magic"), bad.getMessage());
    }

    private static byte[] writeQuietly() {
        try {
            return write(frames(2), new long[] {1, 2});
        } catch (final IOException e) {
            throw new AssertionError(e);
        }
    }

    /** tshark reads our pcapng: the frames, their lengths, and the nanosecond timestamps. */
    @Test
    void tsharkReadsOurPcapngWithNanosecondTimestamps() throws Exception {
        Assumptions.assumeTrue(tshark() || "true".equals(System.getenv("CI")), "tshark not installed; skipping");
        final byte[][] frames = frames(5);
        final long[] ts = {1_700_000_000_123_456_789L, 1_700_000_000_123_456_790L, 1_700_000_001_000_000_001L,
            1_700_000_002_999_999_999L, 1_700_000_003_000_000_000L};
        final Path file = dir.resolve("ours.pcapng");
        Files.write(file, write(frames, ts));
        final Process p = new ProcessBuilder("tshark", "-r", file.toString(), "-T", "fields", "-e", "frame.time_epoch",
            "-e", "frame.len", "-e", "frame.interface_id").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        final List<String> lines = out.lines().toList();
        assertEquals(frames.length, lines.size(), out);
        for (int i = 0; i < frames.length; i++) {
            final String[] f = lines.get(i).split("\t");
            assertEquals(String.format("%d.%09d", ts[i] / 1_000_000_000L, ts[i] % 1_000_000_000L), f[0], out);
            assertEquals(Integer.toString(frames[i].length), f[1], out);
            assertEquals("0", f[2], out);
        }
        final Process info = new ProcessBuilder("capinfos", "-t", "-T", "-r", file.toString()).redirectErrorStream(true).start();
        final String type = new String(info.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        info.waitFor(60, TimeUnit.SECONDS);
        assertTrue(type.contains("pcapng"), type);
    }

    private static boolean tshark() {
        try {
            final Process p = new ProcessBuilder("tshark", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (final IOException e) {
            return false;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
