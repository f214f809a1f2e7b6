package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class IntStackTest {
    private final UnsafeBuffer b = new UnsafeBuffer(new byte[64]);

    @Test
    void aSwitchStampAppendsOneHopWithItsRateQueueTransmittedBytesAndTime() {
        IntStack.putEmpty(b, 4);
        assertEquals(0, IntStack.hops(b, 4));
        assertTrue(IntStack.push(b, 4, 100_000_000_000L, 3 * 128 + 5, 1000 * 128, 123_456));
        assertTrue(IntStack.push(b, 4, 400_000_000_000L, 0, 7 * 128, 200_000));
        assertEquals(2, IntStack.hops(b, 4));
        assertEquals(100_000_000_000L, IntStack.rateBps(b, 4, 0));
        assertEquals(3 * 128, IntStack.queueBytes(b, 4, 0), "queue in whole 128-byte units");
        assertEquals(1000, IntStack.txUnits(b, 4, 0));
        assertEquals(123_456, IntStack.timeNs(b, 4, 0));
        assertEquals(400_000_000_000L, IntStack.rateBps(b, 4, 1));
        assertEquals(200_000, IntStack.timeNs(b, 4, 1));
        assertEquals(2, b.getByte(4 + 1), "hop count in byte 1");
    }

    @Test
    void anEchoIsNeverStampedAndAFullStackTakesNoMoreHops() {
        IntStack.putEmpty(b, 0);
        IntStack.echo(b, 0, true);
        assertFalse(IntStack.push(b, 0, 100_000_000_000L, 0, 0, 1));
        assertEquals(0, IntStack.hops(b, 0));
        IntStack.putEmpty(b, 0);
        for (int i = 0; i < IntStack.MAX_HOPS; i++) {
            assertTrue(IntStack.push(b, 0, 100_000_000_000L, 0, 0, i));
        }
        assertFalse(IntStack.push(b, 0, 100_000_000_000L, 0, 0, 9));
        assertEquals(IntStack.MAX_HOPS, IntStack.hops(b, 0));
        assertEquals(IntStack.MAX_HOPS - 1, IntStack.timeNs(b, 0, IntStack.MAX_HOPS - 1));
    }

    @Test
    void queuesSaturateCountersWrapAndDifferencesSurviveTheWrap() {
        IntStack.putEmpty(b, 0);
        IntStack.push(b, 0, 25_000_000_000L, 1L << 40, IntStack.BYTES_MOD * 128 - 128, IntStack.TIME_MOD - 10);
        IntStack.push(b, 0, 25_000_000_000L, 0, IntStack.BYTES_MOD * 128 + 3 * 128, IntStack.TIME_MOD + 20);
        assertEquals(IntStack.QLEN_MAX * 128, IntStack.queueBytes(b, 0, 0), "a queue too long reads as the maximum");
        long first = IntStack.hopWord(b, 0, 0);
        long second = IntStack.hopWord(b, 0, 1);
        assertEquals(4 * 128, IntStack.bytesBetween(first, second));
        assertEquals(30, IntStack.nanosBetween(first, second));
    }

    @Test
    void aRateOutsideTheTableStampsCodeZero() {
        IntStack.putEmpty(b, 0);
        IntStack.push(b, 0, 37_000_000_000L, 0, 0, 0);
        assertEquals(0, IntStack.rateBps(b, 0, 0));
    }

    @Test
    void aRoceV2FrameCarriesTheStackBeforeTheIcrcWhichStillHoldsAfterASwitchStamps() {
        Framing framing = Framings.of(FramingKind.ROCE2, true);
        Packet p = new Packet();
        p.opcode = Opcode.RC_RDMA_WRITE_MIDDLE;
        p.destQp = 0x11;
        p.psn = 7;
        p.resv7 = OpcodeTable.RESV7_INT;
        UnsafeBuffer payload = new UnsafeBuffer(new byte[256]);
        for (int i = 0; i < 256; i++) {
            payload.putByte(i, (byte) i);
        }
        p.payloadBuffer = payload;
        p.payloadOffset = 0;
        p.payloadLength = 256;
        IntStack.putEmpty(p.intStack, 0);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[framing.maxFrameLength(256)]);
        int len = framing.encode(p, frame, 0);
        assertEquals(14 + 20 + 8 + 12 + 256 + IntStack.LENGTH + 4, len);
        int stack = len - 4 - IntStack.LENGTH;
        IntStack.push(frame, stack, 100_000_000_000L, 1280, 640, 99); // what a switch does on the way

        Packet d = new Packet();
        assertEquals(DecodeStatus.OK, framing.decode(frame, 0, len, d), "the ICRC reads the stack as ones");
        assertEquals(256, d.payloadLength, "the stack is not payload");
        assertEquals(stack, d.intOffset);
        assertEquals(1, IntStack.hops(d.intStack, 0));
        assertEquals(1280, IntStack.queueBytes(d.intStack, 0, 0));
        assertTrue(PacketFormatter.detail(d).contains("int stamped hops=1"), PacketFormatter.detail(d));

        frame.putByte(14 + 20 + 8 + 12 + 3, (byte) 0x55);
        assertEquals(DecodeStatus.BAD_ICRC, framing.decode(frame, 0, len, new Packet()), "the payload is still covered");
    }

    @Test
    void overIpv6TheIcrcHoldsAfterAStampAndRewrittenTrafficClassFlowLabelAndHopLimit() {
        Framing framing = Framings.of(FramingKind.ROCE2, true);
        Packet p = new Packet();
        p.opcode = Opcode.RC_SEND_ONLY;
        p.destQp = 0x22;
        p.psn = 9;
        p.resv7 = OpcodeTable.RESV7_INT;
        p.ipv6 = true;
        p.trafficClass = 0x02; // ECT(0)
        p.flowLabel = 0x12345;
        p.hopLimit = 64;
        p.sgidHi = 0x2001_0db8_0000_0000L;
        p.sgidLo = 1;
        p.dgidHi = 0x2001_0db8_0000_0000L;
        p.dgidLo = 2;
        UnsafeBuffer payload = new UnsafeBuffer(new byte[100]);
        p.payloadBuffer = payload;
        p.payloadLength = 100;
        IntStack.putEmpty(p.intStack, 0);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[framing.maxFrameLength(100)]);
        int len = framing.encode(p, frame, 0);
        assertEquals(14 + 40 + 8 + 12 + 100 + IntStack.LENGTH + 4, len);
        int stack = len - 4 - IntStack.LENGTH;
        IntStack.push(frame, stack, 25_000_000_000L, 4096, 1 << 20, 12345); // a switch stamps
        frame.putByte(14, (byte) 0x60);                                       // ...rewrites the traffic class to CE,
        frame.putByte(15, (byte) 0x3F);                                       // (its low nibble and the flow label)
        frame.putByte(14 + 7, (byte) 63);                                     // and takes one off the hop limit

        Packet d = new Packet();
        assertEquals(DecodeStatus.OK, framing.decode(frame, 0, len, d), "the ICRC masks them and reads the stack as ones");
        assertTrue(d.ipv6);
        assertEquals(3, d.trafficClass & 3, "CE");
        assertEquals(63, d.hopLimit);
        assertEquals(100, d.payloadLength, "the stack is not payload");
        assertEquals(stack, d.intOffset);
        assertEquals(1, IntStack.hops(d.intStack, 0));
        assertEquals(25_000_000_000L, IntStack.rateBps(d.intStack, 0, 0));
        assertEquals(4096, IntStack.queueBytes(d.intStack, 0, 0));
        assertEquals(12345, IntStack.timeNs(d.intStack, 0, 0));

        frame.putByte(14 + 40 + 8 + 12 + 5, (byte) 0x55);
        assertEquals(DecodeStatus.BAD_ICRC, framing.decode(frame, 0, len, new Packet()), "the payload is still covered");
    }

    @Test
    void anIntStackOutsideRoceV2IsRefusedByName() {
        Packet p = new Packet();
        p.opcode = Opcode.RC_SEND_ONLY;
        p.resv7 = OpcodeTable.RESV7_INT;
        UnsafeBuffer frame = new UnsafeBuffer(new byte[512]);
        try {
            Framings.of(FramingKind.ROCE1, true).encode(p, frame, 0);
            throw new AssertionError("encoded");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().startsWith("resv7:"), e.getMessage());
        }
    }
}
