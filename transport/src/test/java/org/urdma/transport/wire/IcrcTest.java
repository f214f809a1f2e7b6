package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class IcrcTest {
    /** Reference: copy the frame, overwrite the variant fields with 1s, CRC32 the lot (WIRE.md §6). */
    private static int reference(final byte[] frame) {
        final byte[] m = frame.clone();
        final int ip = 14;
        final boolean v6 = ((m[12] & 0xFF) << 8 | (m[13] & 0xFF)) == 0x86DD;
        final int udp;
        if (v6) {
            m[ip] |= 0x0F;
            m[ip + 1] = m[ip + 2] = m[ip + 3] = (byte)0xFF;
            m[ip + 7] = (byte)0xFF;
            udp = ip + 40;
        } else {
            m[ip + 1] = m[ip + 8] = m[ip + 10] = m[ip + 11] = (byte)0xFF;
            udp = ip + 20;
        }
        m[udp + 6] = m[udp + 7] = (byte)0xFF;
        m[udp + 8 + 4] = (byte)0xFF;
        final CRC32 crc = new CRC32();
        crc.update(new byte[] { -1, -1, -1, -1, -1, -1, -1, -1 });
        crc.update(m, ip, m.length - 4 - ip);
        return (int)crc.getValue();
    }

    @Test
    void matchesTheMaskedCopyReferenceAndTheStoredValueOnEveryVector() throws Exception {
        final List<byte[]> frames = Vectors.frames("rxe-vectors.pcap");
        final Icrc icrc = new Icrc();
        final Icrc copying = new Icrc(false);
        for (final byte[] f : frames) {
            final UnsafeBuffer b = new UnsafeBuffer(f);
            final boolean v6 = EthernetHeader.type(b, 0) == EthernetHeader.TYPE_IPV6;
            final int net = v6 ? Icrc.NET_IPV6_UDP : Icrc.NET_IPV4_UDP;
            final int value = icrc.compute(b, 14, net, true, f.length - 4);
            assertEquals(reference(f), value);
            assertEquals(value, copying.compute(b, 14, net, true, f.length - 4));
            org.junit.jupiter.api.Assertions.assertTrue(icrc.verify(b, 14, net, true, f.length - 4));
            org.junit.jupiter.api.Assertions.assertTrue(copying.verify(b, 14, net, true, f.length - 4));
            assertEquals(Icrc.get(b, f.length - 4), value);
            // least significant byte first on the wire
            assertEquals((byte)value, f[f.length - 4]);
        }
    }

    /** Every framing with an ICRC stores what an independent masked-copy CRC of WIRE.md §6 (and §9) gives. */
    @Test
    void encodedIcrcMatchesAnIndependentReferenceForEveryFraming() {
        final java.util.SplittableRandom r = new java.util.SplittableRandom(99);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[600]);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
        final Packet p = new Packet();
        for (final FramingKind kind : new FramingKind[] {
            FramingKind.ROCE1, FramingKind.ROCE2, FramingKind.PAXI_STANDARD, FramingKind.PAXI_AFH1, FramingKind.PAXI_AFH2 }) {
            final Framing framing = Framings.of(kind);
            for (int n = 0; n < 200; n++) {
                final List<Integer> ops = RandomPackets.opcodes(kind);
                RandomPackets.fill(r, p, kind, ops.get(r.nextInt(ops.size())), r.nextBoolean(), payload, 500);
                final int len = framing.encode(p, frame, 0);
                if (len == 60) {
                    continue;   // may carry fill after the ICRC; covered by the round-trip tests
                }
                final byte[] m = new byte[len];
                frame.getBytes(0, m);
                final int l2 = 14 + (p.vlan ? 4 : 0);
                int t = l2;
                switch (kind) {
                    case ROCE1 -> {
                        maskIpv6(m, t);
                        t += 40;
                    }
                    case ROCE2, PAXI_STANDARD -> {
                        if (p.ipv6) {
                            maskIpv6(m, t);
                            t += 40;
                        } else {
                            m[t + 1] = m[t + 8] = m[t + 10] = m[t + 11] = (byte)0xFF;
                            t += 20;
                        }
                        m[t + 6] = m[t + 7] = (byte)0xFF;
                    }
                    default -> {
                    }
                }
                if (kind.usesBth()) {
                    final int bth = kind == FramingKind.ROCE1 ? t : t + 8;
                    m[bth + 4] = (byte)0xFF;
                }
                final CRC32 crc = new CRC32();
                crc.update(new byte[] { -1, -1, -1, -1, -1, -1, -1, -1 });
                crc.update(m, l2, len - 4 - l2);
                assertEquals((int)crc.getValue(), Icrc.get(frame, len - 4), kind + " " + p);
            }
        }
    }

    private static void maskIpv6(final byte[] m, final int t) {
        m[t] |= 0x0F;
        m[t + 1] = m[t + 2] = m[t + 3] = m[t + 7] = (byte)0xFF;
    }

    @Test
    void inPlaceComputationGivesTheSameValueAndRestoresTheFrame() throws Exception {
        final Icrc icrc = new Icrc();
        for (final byte[] f : Vectors.frames("rxe-vectors.pcap")) {
            final byte[] copy = f.clone();
            final UnsafeBuffer b = new UnsafeBuffer(copy);
            final int net = EthernetHeader.type(b, 0) == EthernetHeader.TYPE_IPV6 ? Icrc.NET_IPV6_UDP : Icrc.NET_IPV4_UDP;
            assertEquals(icrc.computeCopying(b, 14, net, true, f.length - 4),
                icrc.computeInPlace(b, 14, net, true, f.length - 4));
            org.junit.jupiter.api.Assertions.assertArrayEquals(f, copy);
        }
    }

    @Test
    void offHeapFramesThroughIsalMatchTheReferenceInPlaceAndCopyingAndAreLeftUnchanged() throws Exception {
        if ("true".equals(System.getenv("CI"))) {
            org.junit.jupiter.api.Assertions.assertTrue(org.urdma.nativeio.IsalCrc32.available(),
                "CI=true but ICRCs use " + Icrc.implementation());
        }
        final Icrc inPlace = new Icrc();
        final Icrc copying = new Icrc(false);
        try (Arena arena = Arena.ofConfined()) {
            for (final byte[] f : Vectors.frames("rxe-vectors.pcap")) {
                final MemorySegment seg = arena.allocate(f.length + 1);
                MemorySegment.copy(MemorySegment.ofArray(f), 0, seg, 1, f.length);    // odd address on purpose
                final UnsafeBuffer b = new UnsafeBuffer(seg.address() + 1, f.length);
                final int net = EthernetHeader.type(b, 0) == EthernetHeader.TYPE_IPV6 ?
                    Icrc.NET_IPV6_UDP : Icrc.NET_IPV4_UDP;
                final int expected = reference(f);
                assertEquals(expected, inPlace.compute(b, 14, net, true, f.length - 4));
                assertEquals(expected, copying.compute(b, 14, net, true, f.length - 4));
                org.junit.jupiter.api.Assertions.assertTrue(inPlace.verify(b, 14, net, true, f.length - 4));
                org.junit.jupiter.api.Assertions.assertTrue(copying.verify(b, 14, net, true, f.length - 4));
                org.junit.jupiter.api.Assertions.assertArrayEquals(f, seg.asSlice(1).toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE));
                b.putByte(f.length - 10, (byte)(b.getByte(f.length - 10) ^ 1));     // one bit off: rejected
                org.junit.jupiter.api.Assertions.assertFalse(inPlace.verify(b, 14, net, true, f.length - 4));
                org.junit.jupiter.api.Assertions.assertFalse(copying.verify(b, 14, net, true, f.length - 4));
            }
        }
    }

    @Test
    void sameValueFromArrayHeapBufferDirectBufferAndRawAddress() throws Exception {
        final byte[] f = Vectors.frames("rxe-vectors.pcap").get(0);
        final Icrc icrc = new Icrc(false);
        final int expected = icrc.compute(new UnsafeBuffer(f), 14, Icrc.NET_IPV4_UDP, true, f.length - 4);

        final byte[] shifted = new byte[f.length + 7];
        System.arraycopy(f, 0, shifted, 7, f.length);
        assertEquals(expected, icrc.compute(new UnsafeBuffer(shifted, 7, f.length), 14, Icrc.NET_IPV4_UDP, true,
            f.length - 4));

        final ByteBuffer direct = ByteBuffer.allocateDirect(f.length + 5);
        direct.position(5);
        direct.put(f);
        final UnsafeBuffer d = new UnsafeBuffer(direct, 5, f.length);
        assertEquals(expected, icrc.compute(d, 14, Icrc.NET_IPV4_UDP, true, f.length - 4));
        assertEquals(expected, icrc.compute(d, 14, Icrc.NET_IPV4_UDP, true, f.length - 4));

        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment seg = arena.allocate(f.length + 3);
            MemorySegment.copy(MemorySegment.ofArray(f), 0, seg, 3, f.length);
            final UnsafeBuffer raw = new UnsafeBuffer(seg.address() + 3, f.length);
            assertEquals(expected, icrc.compute(raw, 14, Icrc.NET_IPV4_UDP, true, f.length - 4));
        }
    }
}
