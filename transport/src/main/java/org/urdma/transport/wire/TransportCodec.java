package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes and decodes the transport section shared by every framing but LITE: BTH or RH, the extended headers
 * in {@link OpcodeTable#HEADER_ORDER}, payload and pad. Link and network layers are the framings' business.
 */
final class TransportCodec {
    /** Largest extended-header section (static headers plus every URDMA header with a full SACK-ETH). */
    static final int MAX_EXTENDED_LENGTH = OpcodeTable.extendedLength(
        OpcodeTable.HDR_UETH | OpcodeTable.HDR_TS | OpcodeTable.HDR_RETH | OpcodeTable.HDR_AETH |
        OpcodeTable.HDR_AETH_EXT | OpcodeTable.HDR_SACK | OpcodeTable.HDR_ATOMIC_ETH |
        OpcodeTable.HDR_ATOMIC_ACK_ETH | OpcodeTable.HDR_IMMDT | OpcodeTable.HDR_IETH | OpcodeTable.HDR_DETH,
        SackEth.MAX_RANGES) + IntStack.LENGTH;

    private TransportCodec() {
    }

    /** Validates the packet against the framing and returns its header mask; throws on programming errors. */
    static int checkedMask(final Packet p, final FramingKind kind) {
        final int op = p.opcode;
        if (op < 0 || op > 255 || !kind.canCarry(op)) {
            throw new IllegalArgumentException("opcode: " + Opcode.name(op & 0xFF) + " (0x" +
                Integer.toHexString(op) + ") cannot be carried by framing " + kind.cliName());
        }
        final boolean rh = !kind.usesBth();
        if (rh && (p.resv7 & OpcodeTable.RESV7_URDMA) != 0) {
            throw new IllegalArgumentException("resv7: URDMA extension headers need a BTH; framing " +
                kind.cliName() + " has none");
        }
        if (kind != FramingKind.ROCE2 && (p.resv7 & OpcodeTable.RESV7_INT) != 0) {
            throw new IllegalArgumentException("resv7: an INT stack needs RoCEv2; framing " + kind.cliName() + " is not");
        }
        final int mask = OpcodeTable.headerMask(op, p.resv7, p.uethFlags);
        if ((mask & OpcodeTable.HDR_SACK) != 0 && (p.sackCount < 0 || p.sackCount > SackEth.MAX_RANGES)) {
            throw new IllegalArgumentException("sackCount: must be 0.." + SackEth.MAX_RANGES + ", was " + p.sackCount);
        }
        checkRanges(p, mask, kind);
        if (p.payloadLength < 0 || (p.payloadLength > 0 && p.payloadBuffer == null)) {
            throw new IllegalArgumentException("payload: length " + p.payloadLength + " without a buffer");
        }
        if (p.payloadLength != 0 && !OpcodeTable.has(op, OpcodeTable.PAYLOAD)) {
            throw new IllegalArgumentException("payload: opcode " + Opcode.name(op) + " carries no payload, length was " +
                p.payloadLength);
        }
        return mask;
    }

    /** Throws naming the first field that does not fit its wire width. */
    static void checkRanges(final Packet p, final int mask, final FramingKind kind) {
        bits("dstMac", p.dstMac, 48);
        bits("srcMac", p.srcMac, 48);
        if (p.vlan) {
            bits("pcp", p.pcp, 3);
            bits("vid", p.vid, 12);
        }
        if (kind == FramingKind.ROCE2 || kind == FramingKind.PAXI_STANDARD) {
            bits("udpSrcPort", p.udpSrcPort, 16);
            if (!p.ipv6) {
                bits("tos", p.tos, 8);
                bits("ttl", p.ttl, 8);
                bits("ipId", p.ipId, 16);
                bits("ipFlagsFragment", p.ipFlagsFragment, 16);
            }
        }
        if (kind == FramingKind.ROCE1 || p.ipv6) {
            bits("trafficClass", p.trafficClass, 8);
            bits("flowLabel", p.flowLabel, 20);
            bits("hopLimit", p.hopLimit, 8);
        }
        if (kind == FramingKind.PAXI_AFH1 || kind == FramingKind.PAXI_AFH2 || kind == FramingKind.PAXI_LITE) {
            bits("afhTc", p.afhTc, 8);
            bits("srcXpu", p.srcXpu, 16);
            bits("opFlags", p.opFlags, 8);
            bits("dstQpid", p.dstQpid, 16);
        }
        bits("destQp", p.destQp, 24);
        bits("psn", p.psn, 24);
        if (kind.usesBth()) {
            bits("pkey", p.pkey, 16);
            bits("tver", p.tver, 4);
            bits("resv6", p.resv6, 6);
            bits("resv7", p.resv7, 7);
        } else {
            bits("vc", p.vc, 3);
        }
        if ((mask & OpcodeTable.HDR_UETH) != 0) {
            bits("uethFlags", p.uethFlags, 8);
        }
        if ((mask & OpcodeTable.HDR_DETH) != 0) {
            bits("dethSrcQp", p.dethSrcQp, 24);
        }
        if ((mask & OpcodeTable.HDR_AETH) != 0) {
            bits("aethSyndrome", p.aethSyndrome, 8);
            bits("aethMsn", p.aethMsn, 24);
        }
        if ((mask & OpcodeTable.HDR_AETH_EXT) != 0) {
            bits("aethExtPsn", p.aethExtPsn, 24);
        }
        if ((mask & OpcodeTable.HDR_SACK) != 0) {
            bits("sackCumulativePsn", p.sackCumulativePsn, 24);
            for (int i = 0; i < p.sackCount; i++) {
                bits("sackRangeStart", p.sackRangeStart[i], 24);
                bits("sackRangeLength", p.sackRangeLength[i], 8);
            }
        }
        if ((mask & OpcodeTable.HDR_FEC_ETH) != 0) {
            bits("fecBasePsn", p.fecBasePsn, 24);
            bits("fecM", p.fecM, 8);
            bits("fecR", p.fecR, 8);
            bits("fecIndex", p.fecIndex, 8);
            bits("fecLengthXor", p.fecLengthXor, 16);
        }
        if ((mask & OpcodeTable.HDR_CBFC) != 0) {
            for (int vc = 0; vc < CbfcEth.VCS; vc++) {
                bits("cbfcCredits", p.cbfcCredits[vc], 16);
            }
        }
    }

    private static void bits(final String field, final long value, final int bits) {
        if (value < 0 || value >>> bits != 0) {
            throw new IllegalArgumentException(field + ": must fit in " + bits + " bits (0.." + ((1L << bits) - 1) +
                "), was " + value);
        }
    }

    /** Bytes of the transport section for {@code p}: header, extended headers, payload and pad. */
    static int sectionLength(final Packet p, final int mask, final boolean bth) {
        return (bth ? Bth.LENGTH : Rh.LENGTH) + OpcodeTable.extendedLength(mask, p.sackCount) + p.payloadLength +
            ((-p.payloadLength) & 3);
    }

    /** Writes the transport section at {@code pos}; returns the position after the pad. */
    static int encode(final Packet p, final int mask, final boolean bth, final MutableDirectBuffer b, final int pos) {
        final int pad = (-p.payloadLength) & 3;
        p.padCnt = pad;
        p.headerMask = mask;
        int o = pos;
        if (bth) {
            Bth.put(b, o, p.opcode, p.se, p.migReq, pad, p.tver, p.pkey, p.fecn, p.becn, p.resv6, p.destQp, p.ackReq,
                p.resv7, p.psn);
            o += Bth.LENGTH;
        } else {
            Rh.put(b, o, p.opcode, p.se, p.ackReq, p.vc, pad, p.destQp, p.psn);
            o += Rh.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_UETH) != 0) {
            Ueth.put(b, o, p.uethFlags);
            o += Ueth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_TS) != 0) {
            TsHeader.put(b, o, p.tsT1, p.tsTr);
            o += TsHeader.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_DETH) != 0) {
            Deth.put(b, o, p.dethQkey, p.dethSrcQp);
            o += Deth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_RETH) != 0) {
            Reth.put(b, o, p.rethVa, p.rethRkey, p.rethDmaLength);
            o += Reth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_AETH) != 0) {
            Aeth.put(b, o, p.aethSyndrome, p.aethMsn);
            o += Aeth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_AETH_EXT) != 0) {
            AethExt.put(b, o, p.aethExtT3, p.aethExtTs, p.aethExtPsn);
            o += AethExt.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_SACK) != 0) {
            SackEth.putBase(b, o, p.sackCount, p.sackCumulativePsn);
            for (int i = 0; i < p.sackCount; i++) {
                SackEth.putRange(b, o, i, p.sackRangeStart[i], p.sackRangeLength[i]);
            }
            o += SackEth.length(p.sackCount);
        }
        if ((mask & OpcodeTable.HDR_ATOMIC_ETH) != 0) {
            AtomicEth.put(b, o, p.atomicVa, p.atomicRkey, p.atomicSwapAdd, p.atomicCompare);
            o += AtomicEth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_ATOMIC_ACK_ETH) != 0) {
            AtomicAckEth.put(b, o, p.atomicAckOriginalData);
            o += AtomicAckEth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_IMMDT) != 0) {
            ImmDt.put(b, o, p.immDt);
            o += ImmDt.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_IETH) != 0) {
            Ieth.put(b, o, p.iethRkey);
            o += Ieth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_FEC_ETH) != 0) {
            FecEth.put(b, o, p.fecBasePsn, p.fecM, p.fecR, p.fecIndex, p.fecLengthXor);
            o += FecEth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_CBFC) != 0) {
            for (int vc = 0; vc < CbfcEth.VCS; vc++) {
                CbfcEth.credit(b, o, vc, p.cbfcCredits[vc]);
            }
            o += CbfcEth.LENGTH;
        }
        if ((mask & OpcodeTable.HDR_CNP) != 0) {
            Cnp.put(b, o);
            o += Cnp.LENGTH;
        }
        if (p.payloadLength > 0) {
            b.putBytes(o, p.payloadBuffer, p.payloadOffset, p.payloadLength);
            o += p.payloadLength;
        }
        for (int i = 0; i < pad; i++) {
            b.putByte(o++, (byte)0);
        }
        if (bth && (p.resv7 & OpcodeTable.RESV7_INT) != 0) {
            b.putBytes(o, p.intStack, 0, IntStack.LENGTH);
            o += IntStack.LENGTH;
        }
        return o;
    }

    /**
     * Parses the BTH/RH and extended headers at {@code pos}, bounded by {@code limit}, and records where each header
     * starts in {@link Packet#headerOffsets} (rxe's {@code offset[]}, but per packet: URDMA headers vary). In
     * {@link Packet#inPlace} mode only what framing and validation need is read (opcode, PadCnt, TVer, the URDMA
     * flags and the SACK count); everything else stays in the frame for accessors to read. On OK the header end is
     * stored in {@code out.payloadOffset} (payload length still unset).
     */
    static DecodeStatus decodeHeaders(
        final DirectBuffer b, final int pos, final int limit, final FramingKind kind, final Packet out) {
        final boolean bth = kind.usesBth();
        final int th = bth ? Bth.LENGTH : Rh.LENGTH;
        if (limit - pos < th) {
            return DecodeStatus.TRUNCATED;
        }
        final int op = Bytes.u8(b, pos);
        if (!kind.canCarry(op)) {
            return DecodeStatus.UNKNOWN_OPCODE;
        }
        final boolean all = !out.inPlace;
        out.opcode = op;
        out.transportOffset = pos;
        int uethFlags = 0;
        if (bth) {
            out.padCnt = Bth.padCnt(b, pos);
            out.tver = Bth.tver(b, pos);
            out.resv7 = Bth.resv7(b, pos);
            if (all) {
                out.se = Bth.se(b, pos);
                out.migReq = Bth.migReq(b, pos);
                out.pkey = Bth.pkey(b, pos);
                out.fecn = Bth.fecn(b, pos);
                out.becn = Bth.becn(b, pos);
                out.resv6 = Bth.resv6(b, pos);
                out.destQp = Bth.destQp(b, pos);
                out.ackReq = Bth.ackReq(b, pos);
                out.psn = Bth.psn(b, pos);
            }
            if (out.tver != 0) {
                return DecodeStatus.BAD_VERSION;
            }
            if ((out.resv7 & OpcodeTable.RESV7_URDMA) != 0) {
                if (limit - pos < th + Ueth.LENGTH) {
                    return DecodeStatus.TRUNCATED;
                }
                uethFlags = Ueth.flags(b, pos + th);
            }
        } else {
            out.padCnt = Rh.padCnt(b, pos);
            out.resv7 = 0;
            if (all) {
                out.se = Rh.se(b, pos);
                out.ackReq = Rh.ackReq(b, pos);
                out.vc = Rh.vc(b, pos);
                out.destQp = Rh.destQp(b, pos);
                out.psn = Rh.psn(b, pos);
            }
        }
        final int mask = OpcodeTable.headerMask(op, out.resv7, uethFlags);
        out.headerMask = mask;
        out.uethFlags = uethFlags;
        int o = pos + th;
        for (final int hdr : OpcodeTable.HEADER_ORDER) {
            if ((mask & hdr) == 0) {
                continue;
            }
            int len = OpcodeTable.headerLength(hdr);
            if (limit - o < len) {
                return DecodeStatus.TRUNCATED;
            }
            if (hdr == OpcodeTable.HDR_SACK) {
                final int count = SackEth.count(b, o);
                if (count > SackEth.MAX_RANGES) {
                    return DecodeStatus.BAD_EXTENSION;
                }
                len = SackEth.length(count);
                if (limit - o < len) {
                    return DecodeStatus.TRUNCATED;
                }
                out.sackCount = count;
            }
            out.headerOffsets[OpcodeTable.index(hdr)] = o;
            if (all) {
                readHeader(b, o, hdr, out);
            }
            o += len;
        }
        out.payloadBuffer = b;
        out.payloadOffset = o;
        out.payloadLength = 0;
        return DecodeStatus.OK;
    }

    /** Copies the fields of one extended header at {@code o} into {@code out}. */
    private static void readHeader(final DirectBuffer b, final int o, final int hdr, final Packet out) {
        switch (hdr) {
            case OpcodeTable.HDR_TS -> {
                out.tsT1 = TsHeader.t1(b, o);
                out.tsTr = TsHeader.tr(b, o);
            }
            case OpcodeTable.HDR_DETH -> {
                out.dethQkey = Deth.qkey(b, o);
                out.dethSrcQp = Deth.srcQp(b, o);
            }
            case OpcodeTable.HDR_RETH -> {
                out.rethVa = Reth.va(b, o);
                out.rethRkey = Reth.rkey(b, o);
                out.rethDmaLength = Reth.dmaLength(b, o);
            }
            case OpcodeTable.HDR_AETH -> {
                out.aethSyndrome = Aeth.syndrome(b, o);
                out.aethMsn = Aeth.msn(b, o);
            }
            case OpcodeTable.HDR_AETH_EXT -> {
                out.aethExtT3 = AethExt.t3(b, o);
                out.aethExtTs = AethExt.ts(b, o);
                out.aethExtPsn = AethExt.psn(b, o);
            }
            case OpcodeTable.HDR_SACK -> {
                out.sackCumulativePsn = SackEth.cumulativePsn(b, o);
                for (int i = 0; i < out.sackCount; i++) {
                    out.sackRangeStart[i] = SackEth.rangeStart(b, o, i);
                    out.sackRangeLength[i] = SackEth.rangeLength(b, o, i);
                }
            }
            case OpcodeTable.HDR_ATOMIC_ETH -> {
                out.atomicVa = AtomicEth.va(b, o);
                out.atomicRkey = AtomicEth.rkey(b, o);
                out.atomicSwapAdd = AtomicEth.swapAdd(b, o);
                out.atomicCompare = AtomicEth.compare(b, o);
            }
            case OpcodeTable.HDR_ATOMIC_ACK_ETH -> out.atomicAckOriginalData = AtomicAckEth.originalData(b, o);
            case OpcodeTable.HDR_IMMDT -> out.immDt = ImmDt.imm(b, o);
            case OpcodeTable.HDR_IETH -> out.iethRkey = Ieth.rkey(b, o);
            case OpcodeTable.HDR_FEC_ETH -> {
                out.fecBasePsn = FecEth.basePsn(b, o);
                out.fecM = FecEth.m(b, o);
                out.fecR = FecEth.r(b, o);
                out.fecIndex = FecEth.index(b, o);
                out.fecLengthXor = FecEth.lengthXor(b, o);
            }
            case OpcodeTable.HDR_CBFC -> {
                for (int vc = 0; vc < CbfcEth.VCS; vc++) {
                    out.cbfcCredits[vc] = CbfcEth.credit(b, o, vc);
                }
            }
            default -> {
                // UETH (flags read above) and CNP (reserved bytes) carry nothing more
            }
        }
    }

    /**
     * Sets the payload from the header end (in {@code out.payloadOffset}) to {@code end} (exclusive, before the
     * ICRC) minus PadCnt, and checks it against the opcode.
     */
    static DecodeStatus finishPayload(final Packet out, final int end, final boolean requireAligned) {
        final int remaining = end - out.payloadOffset;
        if (remaining < 0) {
            return DecodeStatus.TRUNCATED;
        }
        if (remaining < out.padCnt) {
            return DecodeStatus.BAD_PADCNT;
        }
        final int payload = remaining - out.padCnt;
        if (!OpcodeTable.has(out.opcode, OpcodeTable.PAYLOAD)) {
            if (out.padCnt != 0) {
                return DecodeStatus.BAD_PADCNT;
            }
            if (payload != 0) {
                return DecodeStatus.LENGTH_MISMATCH;
            }
        } else if (requireAligned && (remaining & 3) != 0) {
            return DecodeStatus.BAD_PADCNT;
        }
        out.payloadLength = payload;
        return DecodeStatus.OK;
    }

    /** Largest transport section for {@code payload} bytes: BTH, every extended header, payload, pad. */
    static int maxSectionLength(final int payload) {
        return Bth.LENGTH + MAX_EXTENDED_LENGTH + payload + 3;
    }
}
