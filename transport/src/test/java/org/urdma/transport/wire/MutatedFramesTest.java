package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MutatedFramesTest {
    static Stream<Arguments> framings() {
        return Stream.of(
            Arguments.of(FramingKind.ROCE1, true), Arguments.of(FramingKind.ROCE2, true),
            Arguments.of(FramingKind.PAXI_STANDARD, true), Arguments.of(FramingKind.PAXI_STANDARD, false),
            Arguments.of(FramingKind.PAXI_AFH1, true), Arguments.of(FramingKind.PAXI_AFH1, false),
            Arguments.of(FramingKind.PAXI_AFH2, true), Arguments.of(FramingKind.PAXI_AFH2, false),
            Arguments.of(FramingKind.PAXI_LITE, false), Arguments.of(FramingKind.ROCE2, false));
    }

    @ParameterizedTest(name = "{0} icrc={1}")
    @MethodSource("framings")
    void truncationsBitFlipsAndWrongIcrcsAreReportedNeverThrown(final FramingKind kind, final boolean icrc) {
        final SplittableRandom r = new SplittableRandom(42 + kind.ordinal());
        // roce2 with icrc=false stands for "roce2 with the read-only (copying) ICRC check"
        final Framing framing = kind.isPaxi() ? Framings.of(kind, icrc) : Framings.of(kind, true, icrc);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[2048]);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[framing.maxFrameLength(2048)]);
        final Packet p = new Packet();
        final Packet out = new Packet();
        final List<Integer> ops = RandomPackets.opcodes(kind);
        final boolean integrity = kind != FramingKind.PAXI_LITE && (icrc || !kind.isPaxi());
        long notOk = 0;
        for (int n = 0; n < 60; n++) {
            final int op = ops.get(r.nextInt(ops.size()));
            RandomPackets.fill(r, p, kind, op, r.nextBoolean(), payload, n % 3 == 0 ? 1400 : 300);
            final int len = framing.encode(p, frame, 0);
            final byte[] original = new byte[len];
            frame.getBytes(0, original);
            final int unpadded = len > 60 ? len : -1;

            // every truncation
            for (int cut = 0; cut < len; cut++) {
                final DecodeStatus s = framing.decode(new UnsafeBuffer(original), 0, cut, out);
                assertNotNull(s);
                if (integrity && cut < unpadded) {
                    assertNotEquals(DecodeStatus.OK, s, kind + " " + p + " cut to " + cut);
                    notOk++;
                }
            }
            // bit flips inside the covered region always rejected; anywhere never throws
            final int covered = coveredStart(kind, p);
            for (int f = 0; f < 40; f++) {
                final byte[] m = original.clone();
                final int bit = r.nextInt(len * 8);
                m[bit >> 3] ^= (byte)(1 << (bit & 7));
                final byte[] before = m.clone();
                final DecodeStatus s = framing.decode(new UnsafeBuffer(m), 0, len, out);
                assertNotNull(s);
                org.junit.jupiter.api.Assertions.assertArrayEquals(before, m, "decode left the frame changed");
                if (integrity && unpadded > 0 && bit >> 3 >= covered && bit >> 3 < unpadded &&
                    !variant(kind, p, bit - covered * 8)) {
                    assertNotEquals(DecodeStatus.OK, s, kind + " " + p + " bit " + bit);
                    notOk++;
                }
            }
            // a wrong ICRC is always caught
            if (integrity && unpadded > 0) {
                for (int bit = 0; bit < 32; bit++) {
                    final byte[] m = original.clone();
                    m[len - 4 + (bit >> 3)] ^= (byte)(1 << (bit & 7));
                    assertEquals(DecodeStatus.BAD_ICRC, framing.decode(new UnsafeBuffer(m), 0, len, out),
                        kind + " " + p + " icrc bit " + bit);
                }
            }
            // random bytes over the tail, random lengths
            for (int k = 0; k < 20; k++) {
                final byte[] m = original.clone();
                final int from = r.nextInt(len);
                for (int i = from; i < len; i++) {
                    m[i] = (byte)r.nextInt(256);
                }
                assertNotNull(framing.decode(new UnsafeBuffer(m), 0, r.nextInt(len + 1), out));
            }
        }
        // out-of-bounds requests are a reason too
        assertEquals(DecodeStatus.TRUNCATED, framing.decode(new UnsafeBuffer(new byte[10]), 4, 64, out));
        assertEquals(DecodeStatus.TRUNCATED, framing.decode(new UnsafeBuffer(new byte[10]), -1, 5, out));
        assertEquals(framing.counters().dropped() >= notOk, true);
    }

    /** Offset of the first byte the frame's integrity checks (ICRC, IP checksum, lengths) cover. */
    private static int coveredStart(final FramingKind kind, final Packet p) {
        final int tag = p.vlan ? 4 : 0;
        return 14 + tag;
    }

    /** True for bits no check covers: IPv6/GRH traffic class, flow label, hop limit; UDP checksum; BTH byte 4. */
    private static boolean variant(final FramingKind kind, final Packet p, final int bitFromNet) {
        final int byteIndex = bitFromNet >> 3;
        final int bitInByte = bitFromNet & 7;    // 0 = LSB, as flipped
        switch (kind) {
            case ROCE1:
                return ipv6Variant(byteIndex, bitInByte) || byteIndex == 40 + 4;
            case ROCE2:
            case PAXI_STANDARD: {
                final int udp = p.ipv6 ? 40 : 20;
                final int bth = udp + 8;
                return (p.ipv6 && ipv6Variant(byteIndex, bitInByte)) || byteIndex == udp + 6 || byteIndex == udp + 7 ||
                    (kind == FramingKind.ROCE2 && byteIndex == bth + 4);
            }
            default:
                return false;
        }
    }

    private static boolean ipv6Variant(final int byteIndex, final int bitInByte) {
        return (byteIndex == 0 && bitInByte < 4) || byteIndex == 1 || byteIndex == 2 || byteIndex == 3 ||
            byteIndex == 7;
    }

    @Test
    void randomGarbageNeverThrowsInAnyDecoder() {
        final SplittableRandom r = new SplittableRandom(7);
        final AnyFrameDecoder any = new AnyFrameDecoder();
        final Packet out = new Packet();
        final Framing[] all = new Framing[FramingKind.values().length];
        for (final FramingKind k : FramingKind.values()) {
            all[k.ordinal()] = Framings.of(k);
        }
        final int[] prefixes = { 0x8915, 0x0800, 0x86DD, 0x88B5, 0x8100, 0x8808 };
        for (int n = 0; n < 20000; n++) {
            final byte[] b = new byte[r.nextInt(200)];
            r.nextBytes(b);
            if (b.length > 14 && r.nextBoolean()) {
                final int t = prefixes[r.nextInt(prefixes.length)];
                b[12] = (byte)(t >> 8);
                b[13] = (byte)t;
                if (t == 0x0800 && b.length > 40 && r.nextBoolean()) {
                    b[14] = 0x45;
                    b[23] = 17;
                    b[36] = 0x12;
                    b[37] = (byte)0xB7;
                }
            }
            final UnsafeBuffer buf = new UnsafeBuffer(b);
            assertNotNull(any.classify(buf, 0, b.length));
            assertNotNull(any.decode(buf, 0, b.length, out));
            for (final Framing f : all) {
                assertNotNull(f.decode(buf, 0, b.length, out));
            }
        }
    }
}
