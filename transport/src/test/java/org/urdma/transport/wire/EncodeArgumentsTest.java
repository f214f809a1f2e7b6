package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class EncodeArgumentsTest {
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);

    private String rejection(final FramingKind kind, final Packet p) {
        return assertThrows(IllegalArgumentException.class, () -> Framings.of(kind).encode(p, frame, 0)).getMessage();
    }

    @Test
    void outOfRangeFieldsAreRejectedByName() {
        final Packet p = new Packet();
        p.opcode = Opcode.RC_SEND_ONLY;
        p.psn = 1 << 24;
        assertTrue(rejection(FramingKind.ROCE2, p).startsWith("psn:"));
        p.psn = 0;
        p.vlan = true;
        p.vid = 4096;
        assertTrue(rejection(FramingKind.ROCE1, p).startsWith("vid:"));
        p.vid = 1;
        p.vc = 8;
        assertTrue(rejection(FramingKind.PAXI_AFH1, p).startsWith("vc:"));
    }

    @Test
    void opcodesAFramingCannotCarryAreRejected() {
        final Packet p = new Packet();
        p.opcode = Opcode.PAXI_CBFC_CREDIT;
        assertTrue(rejection(FramingKind.ROCE2, p).startsWith("opcode:"));
        p.opcode = Opcode.RC_SEND_ONLY;
        assertTrue(rejection(FramingKind.PAXI_LITE, p).startsWith("opcode:"));
        p.opcode = 0x15;
        assertTrue(rejection(FramingKind.ROCE2, p).startsWith("opcode:"));
    }

    @Test
    void payloadOnAHeaderOnlyOpcodeAndUrdmaOverRhAreRejected() {
        final Packet p = new Packet();
        p.opcode = Opcode.RC_ACKNOWLEDGE;
        p.payload(new UnsafeBuffer(new byte[8]), 0, 8);
        assertTrue(rejection(FramingKind.ROCE2, p).startsWith("payload:"));
        p.reset();
        p.opcode = Opcode.RC_SEND_ONLY;
        p.urdma(OpcodeTable.UETH_TS);
        assertTrue(rejection(FramingKind.PAXI_STANDARD, p).startsWith("resv7:"));
    }

    @Test
    void shortFramesArePaddedToSixtyBytesAndAcksAreSixtyTwo() {
        final Packet p = new Packet();
        p.opcode = Opcode.RC_ACKNOWLEDGE;
        assertEquals(62, Framings.of(FramingKind.ROCE2).encode(p, frame, 0));
        p.opcode = Opcode.UC_SEND_ONLY;
        frame.setMemory(0, 100, (byte)0x5A);
        final int len = Framings.of(FramingKind.PAXI_AFH2).encode(p, frame, 0);
        assertEquals(60, len);
        assertEquals(0, frame.getByte(59));
        p.payload(new UnsafeBuffer(new byte[1]), 0, 1);
        assertEquals(62, Framings.of(FramingKind.ROCE2).encode(p, frame, 0));   // 1 byte + PadCnt 3
        assertEquals(3, p.padCnt);
    }
}
