package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OpcodeTableTest {
    @Test
    void offsetsAndLengthsMatchRxeOpcodeTable() {
        // values from rxe_opcode.c (offsets from the BTH start, length = BTH + extended headers)
        assertEquals(12, OpcodeTable.offset(Opcode.RC_RDMA_WRITE_FIRST, OpcodeTable.HDR_RETH));
        assertEquals(28, OpcodeTable.headerLengthWithBth(Opcode.RC_RDMA_WRITE_FIRST));
        assertEquals(28, OpcodeTable.offset(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMM, OpcodeTable.HDR_IMMDT));
        assertEquals(32, OpcodeTable.headerLengthWithBth(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMM));
        assertEquals(16, OpcodeTable.headerLengthWithBth(Opcode.RC_ACKNOWLEDGE));
        assertEquals(16, OpcodeTable.offset(Opcode.RC_ATOMIC_ACKNOWLEDGE, OpcodeTable.HDR_ATOMIC_ACK_ETH));
        assertEquals(24, OpcodeTable.headerLengthWithBth(Opcode.RC_ATOMIC_ACKNOWLEDGE));
        assertEquals(40, OpcodeTable.headerLengthWithBth(Opcode.RC_COMPARE_SWAP));
        assertEquals(20, OpcodeTable.offset(Opcode.UD_SEND_ONLY_WITH_IMM, OpcodeTable.HDR_IMMDT));
        assertEquals(24, OpcodeTable.headerLengthWithBth(Opcode.UD_SEND_ONLY_WITH_IMM));
        assertEquals(16, OpcodeTable.headerLengthWithBth(Opcode.RC_SEND_ONLY_WITH_INVALIDATE));
        assertEquals(28, OpcodeTable.headerLengthWithBth(Opcode.CNP));
        assertEquals(-1, OpcodeTable.offset(Opcode.RC_SEND_MIDDLE, OpcodeTable.HDR_RETH));
    }

    @Test
    void validPerTransportAndFlags() {
        assertTrue(OpcodeTable.valid(Opcode.TRANSPORT_RC, Opcode.RC_FETCH_ADD));
        assertFalse(OpcodeTable.valid(Opcode.TRANSPORT_UC, 0x2C)); // UC has no READ
        assertFalse(OpcodeTable.valid(Opcode.TRANSPORT_UD, 0x60)); // UD only SEND_ONLY[_IMM]
        assertTrue(OpcodeTable.valid(Opcode.TRANSPORT_UD, Opcode.UD_SEND_ONLY_WITH_IMM));
        assertFalse(OpcodeTable.known(0x15));
        assertTrue(OpcodeTable.has(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, OpcodeTable.PAYLOAD));
        assertFalse(OpcodeTable.has(Opcode.RC_RDMA_READ_REQUEST, OpcodeTable.PAYLOAD));
        assertTrue(OpcodeTable.has(Opcode.RC_SEND_LAST_WITH_INVALIDATE, OpcodeTable.INV | OpcodeTable.END));
    }

    @Test
    void urdmaHeadersFollowTheFlags() {
        final int ts = OpcodeTable.headerMask(Opcode.RC_ACKNOWLEDGE, OpcodeTable.RESV7_URDMA,
            OpcodeTable.UETH_TS | OpcodeTable.UETH_SACK);
        assertEquals(OpcodeTable.HDR_UETH | OpcodeTable.HDR_TS | OpcodeTable.HDR_AETH | OpcodeTable.HDR_AETH_EXT |
            OpcodeTable.HDR_SACK, ts);
        final int perPacket = OpcodeTable.headerMask(Opcode.RC_RDMA_WRITE_MIDDLE, OpcodeTable.RESV7_URDMA,
            OpcodeTable.UETH_PER_PACKET_RETH);
        assertEquals(OpcodeTable.HDR_UETH | OpcodeTable.HDR_RETH, perPacket);
        assertEquals(OpcodeTable.HDR_UETH | OpcodeTable.HDR_RETH | OpcodeTable.HDR_IMMDT, OpcodeTable.headerMask(
            Opcode.RC_SEND_LAST_WITH_IMM, OpcodeTable.RESV7_URDMA, OpcodeTable.UETH_PER_PACKET_RETH));
        assertEquals(OpcodeTable.HDR_UETH | OpcodeTable.HDR_DETH, OpcodeTable.headerMask(
            Opcode.UD_SEND_ONLY, OpcodeTable.RESV7_URDMA, OpcodeTable.UETH_PER_PACKET_RETH));
        assertEquals(0, OpcodeTable.headerMask(Opcode.RC_RDMA_WRITE_MIDDLE, 0, 0xFF));
    }

    @Test
    void namesAndParsing() {
        assertEquals("RC_SEND_FIRST", Opcode.name(0x00));
        assertEquals("UD_SEND_ONLY", Opcode.name(0x64));
        assertEquals("CNP", Opcode.name(0x81));
        assertEquals("PAXI_CBFC_CREDIT", Opcode.name(0xC0));
        assertEquals("URDMA_FEC_PARITY", Opcode.name(0xC1));
        assertEquals(0x0B, Opcode.parse("rc_rdma_write_only_with_imm"));
        assertEquals(0x64, Opcode.parse("0x64"));
        assertThrows(IllegalArgumentException.class, () -> Opcode.parse("RC_BOGUS"));
    }

    @Test
    void aethSyndromeHelpers() {
        assertEquals(0x1F, Aeth.ack(Aeth.CREDITS_INVALID));
        assertTrue(Aeth.isRnrNak(Aeth.rnrNak(14)));
        assertEquals(14, Aeth.value(Aeth.rnrNak(14)));
        assertEquals(0x62, Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR));
        assertEquals(655360, Aeth.rnrTimerMicros(0));
        assertEquals(491520, Aeth.rnrTimerMicros(31));
        assertTrue(Psn.after(0, 0xFFFFFF));
        assertFalse(Psn.after(0xFFFFFF, 0));
        assertEquals(-1, Psn.diff(0xFFFFFF, 0));
    }

    @Test
    void framingKindNamesAndErrors() {
        assertEquals(FramingKind.PAXI_AFH2, FramingKind.parse("paxi-afh2"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FramingKind.parse("roce3"));
        assertTrue(e.getMessage().contains("roce1, roce2, paxi-standard, paxi-afh1, paxi-afh2, paxi-lite"), e.getMessage());
        assertTrue(FramingKind.PAXI_AFH1.canCarry(Opcode.PAXI_CBFC_CREDIT));
        assertFalse(FramingKind.ROCE2.canCarry(Opcode.PAXI_CBFC_CREDIT));
        assertTrue(FramingKind.PAXI_LITE.canCarry(Opcode.UC_SEND_ONLY));
        assertFalse(FramingKind.PAXI_LITE.canCarry(Opcode.RC_SEND_ONLY));
    }
}
