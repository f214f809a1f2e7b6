package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;

/** Seeded random packets for property tests, and field-by-field comparison per framing. */
final class RandomPackets {
    private RandomPackets() {
    }

    /** Every opcode {@code kind} can carry. */
    static List<Integer> opcodes(final FramingKind kind) {
        final List<Integer> ops = new ArrayList<>();
        for (int op = 0; op < 256; op++) {
            if (kind.canCarry(op)) {
                ops.add(op);
            }
        }
        return ops;
    }

    /** Fills {@code p} with random in-range fields for {@code op}; payload drawn into {@code payload}. */
    static void fill(
        final SplittableRandom r, final Packet p, final FramingKind kind, final int op, final boolean vlan,
        final UnsafeBuffer payload, final int maxPayload) {
        p.reset();
        p.opcode = op;
        p.dstMac = r.nextLong() & 0xFFFF_FFFF_FFFFL;
        p.srcMac = r.nextLong() & 0xFFFF_FFFF_FFFFL;
        p.vlan = vlan;
        p.pcp = r.nextInt(8);
        p.dei = r.nextBoolean();
        p.vid = r.nextInt(4096);
        p.ipv6 = kind == FramingKind.ROCE2 && r.nextBoolean();
        p.ipSrc = r.nextInt();
        p.ipDst = r.nextInt();
        p.tos = r.nextInt(256);
        p.ttl = r.nextInt(256);
        p.ipId = r.nextInt(65536);
        p.ipFlagsFragment = r.nextBoolean() ? Ipv4Header.FLAG_DF : 0;
        p.trafficClass = r.nextInt(256);
        p.flowLabel = r.nextInt(1 << 20);
        p.hopLimit = r.nextInt(256);
        p.sgidHi = r.nextLong();
        p.sgidLo = r.nextLong();
        p.dgidHi = r.nextLong();
        p.dgidLo = r.nextLong();
        p.udpSrcPort = r.nextInt(65536);
        p.afhTc = r.nextInt(256);
        p.srcXpu = r.nextInt(65536);
        p.opFlags = r.nextInt(256);
        p.se = r.nextBoolean();
        p.migReq = r.nextBoolean();
        p.pkey = r.nextInt(65536);
        p.fecn = r.nextBoolean();
        p.becn = r.nextBoolean();
        p.resv6 = r.nextInt(64);
        p.destQp = r.nextInt(1 << 24);
        p.dstQpid = kind == FramingKind.PAXI_AFH2 && r.nextBoolean() ? p.destQp & 0xFFFF : r.nextInt(65536);
        p.ackReq = r.nextBoolean();
        p.resv7 = r.nextInt(128) & ~(OpcodeTable.RESV7_URDMA | OpcodeTable.RESV7_INT);
        p.psn = r.nextInt(1 << 24);
        p.vc = r.nextInt(8);
        p.rethVa = r.nextLong();
        p.rethRkey = r.nextInt();
        p.rethDmaLength = r.nextInt();
        p.aethSyndrome = r.nextInt(256);
        p.aethMsn = r.nextInt(1 << 24);
        p.atomicVa = r.nextLong();
        p.atomicRkey = r.nextInt();
        p.atomicSwapAdd = r.nextLong();
        p.atomicCompare = r.nextLong();
        p.atomicAckOriginalData = r.nextLong();
        p.immDt = r.nextInt();
        p.iethRkey = r.nextInt();
        p.dethQkey = r.nextInt();
        p.dethSrcQp = r.nextInt(1 << 24);
        if (kind.usesBth() && r.nextInt(3) == 0) {
            p.urdma(r.nextInt(256) & 0xF0);
            p.tsT1 = r.nextInt();
            p.tsTr = r.nextInt();
            p.aethExtT3 = r.nextInt();
            p.aethExtTs = r.nextInt();
            p.aethExtPsn = r.nextInt(1 << 24);
            p.sackCount = r.nextInt(SackEth.MAX_RANGES + 1);
            p.sackCumulativePsn = r.nextInt(1 << 24);
            for (int i = 0; i < p.sackCount; i++) {
                p.sackRangeStart[i] = r.nextInt(1 << 24);
                p.sackRangeLength[i] = r.nextInt(256);
            }
        }
        p.fecBasePsn = r.nextInt(1 << 24);
        p.fecM = r.nextInt(256);
        p.fecR = r.nextInt(256);
        p.fecIndex = r.nextInt(256);
        p.fecLengthXor = r.nextInt(65536);
        for (int vc = 0; vc < CbfcEth.VCS; vc++) {
            p.cbfcCredits[vc] = r.nextInt(65536);
        }
        if (OpcodeTable.has(op, OpcodeTable.PAYLOAD) || kind == FramingKind.PAXI_LITE) {
            final int len = r.nextInt(4) == 0 ? r.nextInt(8) : r.nextInt(maxPayload + 1);
            final int off = r.nextInt(16);
            for (int i = 0; i < len; i++) {
                payload.putByte(off + i, (byte)r.nextInt(256));
            }
            if (kind == FramingKind.PAXI_LITE && !vlan && len >= 2 && (payload.getShort(off) & 0xFFFF) == 0x0081) {
                payload.putByte(off, (byte)0x7F);
            }
            p.payload(payload, off, len);
        }
    }

    /** Asserts that {@code b} (decoded) carries what {@code a} (encoded) said, for the fields {@code kind} has. */
    static void assertCarried(final Packet a, final Packet b, final FramingKind kind, final boolean zeroExtended) {
        final String m = kind + " " + a;
        assertEquals(a.opcode, b.opcode, m);
        assertEquals(a.dstMac, b.dstMac, m);
        assertEquals(a.vlan, b.vlan, m);
        if (a.vlan) {
            assertEquals(a.pcp, b.pcp, m);
            assertEquals(a.dei, b.dei, m);
            assertEquals(a.vid, b.vid, m);
        }
        switch (kind) {
            case ROCE1, ROCE2, PAXI_STANDARD -> assertEquals(a.srcMac, b.srcMac, m);
            case PAXI_AFH1 -> assertEquals(a.srcMac & 0xFF_FFFF_FFFFL, b.srcMac, m);
            default -> { }
        }
        if (kind == FramingKind.PAXI_AFH1 || kind == FramingKind.PAXI_AFH2 || kind == FramingKind.PAXI_LITE) {
            assertEquals(a.afhTc, b.afhTc, m);
        }
        if (kind == FramingKind.PAXI_AFH2 || kind == FramingKind.PAXI_LITE) {
            assertEquals(a.srcXpu, b.srcXpu, m);
            assertEquals(a.opFlags, b.opFlags, m);
            assertEquals(a.dstQpid, b.dstQpid, m);
        }
        if (kind == FramingKind.ROCE2 || kind == FramingKind.PAXI_STANDARD) {
            assertEquals(a.ipv6, b.ipv6, m);
            assertEquals(a.udpSrcPort, b.udpSrcPort, m);
        }
        if (kind == FramingKind.ROCE1 || a.ipv6) {
            assertEquals(a.trafficClass, b.trafficClass, m);
            assertEquals(a.flowLabel, b.flowLabel, m);
            assertEquals(a.hopLimit, b.hopLimit, m);
            assertEquals(a.sgidHi, b.sgidHi, m);
            assertEquals(a.sgidLo, b.sgidLo, m);
            assertEquals(a.dgidHi, b.dgidHi, m);
            assertEquals(a.dgidLo, b.dgidLo, m);
        } else if (kind == FramingKind.ROCE2 || kind == FramingKind.PAXI_STANDARD) {
            assertEquals(a.ipSrc, b.ipSrc, m);
            assertEquals(a.ipDst, b.ipDst, m);
            assertEquals(a.tos, b.tos, m);
            assertEquals(a.ttl, b.ttl, m);
            assertEquals(a.ipId, b.ipId, m);
            assertEquals(a.ipFlagsFragment, b.ipFlagsFragment, m);
        }
        if (kind == FramingKind.PAXI_LITE) {
            assertEquals(a.dstQpid, b.destQp, m);
            assertEquals((a.afhTc >> 2) & 7, b.vc, m);
            assertPayload(a, b, true, m);
            return;
        }
        assertEquals(a.destQp, b.destQp, m);
        assertEquals(a.psn, b.psn, m);
        assertEquals(a.se, b.se, m);
        assertEquals(a.ackReq, b.ackReq, m);
        assertEquals(a.padCnt, b.padCnt, m);
        if (kind.usesBth()) {
            assertEquals(a.migReq, b.migReq, m);
            assertEquals(a.pkey, b.pkey, m);
            assertEquals(a.fecn, b.fecn, m);
            assertEquals(a.becn, b.becn, m);
            assertEquals(a.resv6, b.resv6, m);
            assertEquals(a.resv7, b.resv7, m);
        } else {
            assertEquals(a.vc, b.vc, m);
        }
        final int mask = a.headerMask;
        assertEquals(mask, b.headerMask, m);
        if ((mask & OpcodeTable.HDR_UETH) != 0) {
            assertEquals(a.uethFlags, b.uethFlags, m);
        }
        if ((mask & OpcodeTable.HDR_TS) != 0) {
            assertEquals(a.tsT1, b.tsT1, m);
            assertEquals(a.tsTr, b.tsTr, m);
        }
        if ((mask & OpcodeTable.HDR_DETH) != 0) {
            assertEquals(a.dethQkey, b.dethQkey, m);
            assertEquals(a.dethSrcQp, b.dethSrcQp, m);
        }
        if ((mask & OpcodeTable.HDR_RETH) != 0) {
            assertEquals(a.rethVa, b.rethVa, m);
            assertEquals(a.rethRkey, b.rethRkey, m);
            assertEquals(a.rethDmaLength, b.rethDmaLength, m);
        }
        if ((mask & OpcodeTable.HDR_AETH) != 0) {
            assertEquals(a.aethSyndrome, b.aethSyndrome, m);
            assertEquals(a.aethMsn, b.aethMsn, m);
        }
        if ((mask & OpcodeTable.HDR_AETH_EXT) != 0) {
            assertEquals(a.aethExtT3, b.aethExtT3, m);
            assertEquals(a.aethExtTs, b.aethExtTs, m);
            assertEquals(a.aethExtPsn, b.aethExtPsn, m);
        }
        if ((mask & OpcodeTable.HDR_SACK) != 0) {
            assertEquals(a.sackCount, b.sackCount, m);
            assertEquals(a.sackCumulativePsn, b.sackCumulativePsn, m);
            for (int i = 0; i < a.sackCount; i++) {
                assertEquals(a.sackRangeStart[i], b.sackRangeStart[i], m);
                assertEquals(a.sackRangeLength[i], b.sackRangeLength[i], m);
            }
        }
        if ((mask & OpcodeTable.HDR_ATOMIC_ETH) != 0) {
            assertEquals(a.atomicVa, b.atomicVa, m);
            assertEquals(a.atomicRkey, b.atomicRkey, m);
            assertEquals(a.atomicSwapAdd, b.atomicSwapAdd, m);
            assertEquals(a.atomicCompare, b.atomicCompare, m);
        }
        if ((mask & OpcodeTable.HDR_ATOMIC_ACK_ETH) != 0) {
            assertEquals(a.atomicAckOriginalData, b.atomicAckOriginalData, m);
        }
        if ((mask & OpcodeTable.HDR_IMMDT) != 0) {
            assertEquals(a.immDt, b.immDt, m);
        }
        if ((mask & OpcodeTable.HDR_IETH) != 0) {
            assertEquals(a.iethRkey, b.iethRkey, m);
        }
        if ((mask & OpcodeTable.HDR_FEC_ETH) != 0) {
            assertEquals(a.fecBasePsn, b.fecBasePsn, m);
            assertEquals(a.fecM, b.fecM, m);
            assertEquals(a.fecR, b.fecR, m);
            assertEquals(a.fecIndex, b.fecIndex, m);
            assertEquals(a.fecLengthXor, b.fecLengthXor, m);
        }
        if ((mask & OpcodeTable.HDR_CBFC) != 0) {
            for (int vc = 0; vc < CbfcEth.VCS; vc++) {
                assertEquals(a.cbfcCredits[vc], b.cbfcCredits[vc], m);
            }
        }
        assertPayload(a, b, zeroExtended, m);
    }

    private static void assertPayload(final Packet a, final Packet b, final boolean mayBeZeroExtended, final String m) {
        if (!mayBeZeroExtended || b.payloadLength == a.payloadLength) {
            assertEquals(a.payloadLength, b.payloadLength, m);
        } else {
            org.junit.jupiter.api.Assertions.assertTrue(b.payloadLength > a.payloadLength, m);
            for (int i = a.payloadLength; i < b.payloadLength; i++) {
                assertEquals(0, b.payloadBuffer.getByte(b.payloadOffset + i), m + " zero extension at " + i);
            }
        }
        for (int i = 0; i < a.payloadLength; i++) {
            assertEquals(a.payloadBuffer.getByte(a.payloadOffset + i), b.payloadBuffer.getByte(b.payloadOffset + i),
                m + " payload byte " + i);
        }
    }
}
