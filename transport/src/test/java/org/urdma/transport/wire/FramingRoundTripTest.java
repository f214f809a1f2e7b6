package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FramingRoundTripTest {
    private static final int ROUNDS = 40;

    static Stream<Arguments> framings() {
        return Stream.of(FramingKind.values()).flatMap(k -> Stream.of(
            Arguments.of(k, true, false), Arguments.of(k, true, true),
            Arguments.of(k, false, false), Arguments.of(k, false, true)))
            .filter(a -> ((FramingKind)a.get()[0]).isPaxi() || (Boolean)a.get()[1]);
    }

    @ParameterizedTest(name = "{0} icrc={1} vlan={2}")
    @MethodSource("framings")
    void everyOpcodeRoundTripsWithRandomFields(final FramingKind kind, final boolean icrc, final boolean vlan) {
        final SplittableRandom r = new SplittableRandom(0x5EED ^ kind.ordinal() * 31L ^ (icrc ? 7 : 0) ^ (vlan ? 3 : 0));
        final Framing framing = Framings.of(kind, icrc);
        final Framing again = Framings.of(kind, icrc);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[4200]);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[framing.maxFrameLength(4096) + 64]);
        final UnsafeBuffer frame2 = new UnsafeBuffer(new byte[frame.capacity()]);
        final Packet a = new Packet();
        final Packet b = new Packet();
        int cases = 0;
        for (final int op : RandomPackets.opcodes(kind)) {
            for (int round = 0; round < ROUNDS; round++) {
                RandomPackets.fill(r, a, kind, op, vlan, payload, round % 8 == 0 ? 4096 : 80);
                final int at = r.nextInt(32);
                final int len = framing.encode(a, frame, at);
                assertTrue(len >= 60 && len <= framing.maxFrameLength(a.payloadLength), kind + " length " + len);
                final DecodeStatus s = framing.decode(frame, at, len, b);
                assertEquals(DecodeStatus.OK, s, kind + " " + a);
                final boolean zeroExtended = len == 60 && (kind == FramingKind.PAXI_LITE ||
                    (!icrc && (kind == FramingKind.PAXI_AFH1 || kind == FramingKind.PAXI_AFH2)));
                RandomPackets.assertCarried(a, b, kind, zeroExtended);
                // re-encoding what was decoded gives the same bytes
                final Packet c = new Packet().copyFrom(b);
                if (zeroExtended && kind != FramingKind.PAXI_LITE) {
                    c.payloadLength = a.payloadLength;
                }
                final int len2 = again.encode(c, frame2, 0);
                assertEquals(len, len2, kind + " " + a);
                final byte[] x = new byte[len];
                final byte[] y = new byte[len];
                frame.getBytes(at, x);
                frame2.getBytes(0, y);
                assertArrayEquals(x, y, kind + " " + a);
                cases++;
            }
        }
        assertEquals(cases, framing.counters().get(DecodeStatus.OK));
        assertEquals(0, framing.counters().dropped());
    }
}
