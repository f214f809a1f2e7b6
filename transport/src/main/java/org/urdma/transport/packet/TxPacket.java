package org.urdma.transport.packet;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.AethExt;
import org.urdma.transport.wire.AtomicAckEth;
import org.urdma.transport.wire.AtomicEth;
import org.urdma.transport.wire.Bth;
import org.urdma.transport.wire.CbfcEth;
import org.urdma.transport.wire.Cnp;
import org.urdma.transport.wire.Deth;
import org.urdma.transport.wire.FecEth;
import org.urdma.transport.wire.Ieth;
import org.urdma.transport.wire.ImmDt;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Reth;
import org.urdma.transport.wire.Rh;
import org.urdma.transport.wire.SackEth;
import org.urdma.transport.wire.TsHeader;
import org.urdma.transport.wire.Ueth;

/**
 * Writes one packet's transport section straight into a link's frame slot: the BTH (or PAXI RH), the extended headers
 * at the offsets the opcode table gives, the payload and its pad. The link positions it ({@link #wrap}) on
 * {@link Link#claim} and frames it on {@link Link#commit}. Call {@link #start} first, then the opcode's headers in any
 * order, then the payload. One instance per link, reused for every packet.
 */
public final class TxPacket {
    /** Offset of each extended header from the BTH start, by opcode and {@link OpcodeTable#index(int)}. */
    private static final int[] OFFSET = new int[256 * OpcodeTable.HEADER_KINDS];
    /** BTH plus the opcode's extended headers: where the payload starts. */
    private static final int[] HEADERS = new int[256];

    /** As {@link #OFFSET} and {@link #HEADERS} for URDMA packets, by UETH flags (high nibble) then opcode (SACK-ETH without ranges). */
    private static final int[] WAN_OFFSET = new int[16 * 256 * OpcodeTable.HEADER_KINDS];
    private static final int[] WAN_HEADERS = new int[16 * 256];

    static {
        for (int op = 0; op < 256; op++) {
            int mask = OpcodeTable.mask(op);
            for (int hdr : OpcodeTable.HEADER_ORDER) {
                OFFSET[op * OpcodeTable.HEADER_KINDS + OpcodeTable.index(hdr)] = OpcodeTable.offset(op, hdr);
            }
            HEADERS[op] = OpcodeTable.headerLengthWithBth(op);
            for (int f = 1; f < 16; f++) {
                int wanMask = OpcodeTable.headerMask(op, OpcodeTable.RESV7_URDMA, f << 4);
                int row = f * 256 + op;
                for (int hdr : OpcodeTable.HEADER_ORDER) {
                    WAN_OFFSET[row * OpcodeTable.HEADER_KINDS + OpcodeTable.index(hdr)] = OpcodeTable.offsetIn(wanMask, hdr, 0);
                }
                WAN_HEADERS[row] = Bth.LENGTH + OpcodeTable.extendedLength(wanMask, 0);
            }
        }
    }

    private MutableDirectBuffer buffer;
    private int frameOffset;
    private int th;
    /** BTH bytes minus RH bytes when the framing uses the PAXI RH, else 0. */
    private int rhShrink;
    private boolean discard;
    private int opcode;
    /** Row of the URDMA layout tables ({@code (uethFlags >>> 4) * 256 + opcode}); 0 = the static layout. */
    private int wanRow;
    private int destQp;
    private int payloadAt;
    private int payloadLength;
    /** Frame bytes the payload takes: {@link #payloadLength} unless the payloads are described, not copied. */
    private int payloadBytes;
    private Payloads payloads = Payloads.COPY;
    /** The INT stack to append: none, an empty one (a sender's), or {@link #intEcho}'s copy. */
    private int intMode;
    private DirectBuffer intSource;
    private int intSourceOffset;
    private static final int INT_NONE = 0;
    private static final int INT_EMPTY = 1;
    private static final int INT_ECHO = 2;

    /** How this link's frames carry payload (link side, set once). */
    public TxPacket payloads(Payloads p) {
        this.payloads = p;
        return this;
    }

    /** Positions the writer in a frame slot (link side): the transport header starts at {@code transportOffset}. */
    public TxPacket wrap(MutableDirectBuffer buffer, int frameOffset, int transportOffset, boolean rh) {
        this.buffer = buffer;
        this.frameOffset = frameOffset;
        this.th = transportOffset;
        this.rhShrink = rh ? Bth.LENGTH - Rh.LENGTH : 0;
        this.discard = false;
        return this;
    }

    /** Marks a slot whose packet the link will count and drop on commit (it cannot carry it). */
    public TxPacket discard() {
        discard = true;
        return this;
    }

    public boolean discarded() {
        return discard;
    }

    /** Bytes a transport section of {@code opcode} with {@code payloadLength} bytes takes (BTH, headers, payload, pad). */
    public static int sectionLength(int opcode, int payloadLength) {
        return HEADERS[opcode & 0xFF] + payloadLength + ((-payloadLength) & 3);
    }

    /**
     * Header bytes an URDMA packet of {@code opcode} with {@code uethFlags} carries beyond the static layout, plus
     * {@code sackRanges} SACK ranges: what a claim adds to the payload length so the slot fits.
     */
    public static int wanExtra(int opcode, int uethFlags, int sackRanges) {
        if (uethFlags == 0) return 0;
        return WAN_HEADERS[((uethFlags >>> 4) & 0xF) * 256 + (opcode & 0xFF)] - HEADERS[opcode & 0xFF]
                + sackRanges * SackEth.RANGE_LENGTH;
    }

    /**
     * Writes the BTH with resv7 {@link OpcodeTable#RESV7_URDMA} and the UETH when {@code uethFlags} is not 0 (WAN mode,
     * WIRE.md §10), the headers the flags add then follow at their offsets; {@code sackRanges} sizes a SACK-ETH. With 0
     * flags exactly {@link #start(int, int, int, boolean, boolean)}. URDMA headers need a BTH (not the PAXI RH).
     */
    public TxPacket start(int opcode, int destQp, int psn, boolean ackReq, boolean solicited, int uethFlags, int sackRanges) {
        if (uethFlags == 0 || rhShrink != 0) return start(opcode, destQp, psn, ackReq, solicited);
        this.opcode = opcode;
        this.destQp = destQp;
        this.payloadLength = 0;
        this.payloadBytes = 0;
        this.wanRow = ((uethFlags >>> 4) & 0xF) * 256 + opcode;
        this.intMode = INT_NONE;
        this.payloadAt = th + WAN_HEADERS[wanRow] + sackRanges * SackEth.RANGE_LENGTH;
        Bth.put(buffer, th, opcode, solicited, false, 0, 0, 0xFFFF, false, false, 0, destQp, ackReq, OpcodeTable.RESV7_URDMA, psn);
        Ueth.put(buffer, th + Bth.LENGTH, uethFlags);
        return this;
    }

    /** Writes the BTH (PadCnt follows from the payload, see {@link #finish}). */
    public TxPacket start(int opcode, int destQp, int psn, boolean ackReq, boolean solicited) {
        this.opcode = opcode;
        this.wanRow = 0;
        this.intMode = INT_NONE;
        this.destQp = destQp;
        this.payloadLength = 0;
        this.payloadBytes = 0;
        this.payloadAt = th + HEADERS[opcode] - rhShrink;
        if (rhShrink == 0) {
            Bth.put(buffer, th, opcode, solicited, false, 0, 0, 0xFFFF, false, false, 0, destQp, ackReq, 0, psn);
        } else {
            Rh.put(buffer, th, opcode, solicited, ackReq, 0, 0, destQp, psn);
        }
        return this;
    }

    private int at(int hdr) {
        if (wanRow != 0) return th + WAN_OFFSET[wanRow * OpcodeTable.HEADER_KINDS + OpcodeTable.index(hdr)];
        return th + OFFSET[opcode * OpcodeTable.HEADER_KINDS + OpcodeTable.index(hdr)] - rhShrink;
    }

    /** TS: this packet's transmit time (ns mod 2^32) and the last one-way delay measured receiver to sender. */
    public TxPacket ts(int t1, int tr) {
        TsHeader.put(buffer, at(OpcodeTable.HDR_TS), t1, tr);
        return this;
    }

    /** AETH-EXT: this ACK's transmit time, the one-way delay of the packet it answers, and that packet's PSN. */
    public TxPacket aethExt(int t3, int ts, int psn) {
        AethExt.put(buffer, at(OpcodeTable.HDR_AETH_EXT), t3, ts, psn);
        return this;
    }

    /** SACK-ETH base: how many ranges follow (as given to {@link #start}) and the cumulative PSN (all below received). */
    public TxPacket sack(int count, int cumulativePsn) {
        SackEth.putBase(buffer, at(OpcodeTable.HDR_SACK), count, cumulativePsn);
        return this;
    }

    /** SACK-ETH loss byte: the receiver's loss rate in 1/4096 (0..255); after {@link #sack}. */
    public TxPacket sackLoss(int loss) {
        SackEth.putLoss(buffer, at(OpcodeTable.HDR_SACK), loss);
        return this;
    }

    /** FEC-ETH of a P-FEC parity packet (opcode 0xC1, WIRE.md §10). */
    public TxPacket fecEth(int basePsn, int m, int r, int index, int lengthXor) {
        FecEth.put(buffer, at(OpcodeTable.HDR_FEC_ETH), basePsn, m, r, index, lengthXor);
        return this;
    }

    /** SACK-ETH range {@code i}: {@code length} missing PSNs from {@code start}. */
    public TxPacket sackRange(int i, int start, int length) {
        SackEth.putRange(buffer, at(OpcodeTable.HDR_SACK), i, start, length);
        return this;
    }

    public TxPacket reth(long va, int rkey, int length) {
        Reth.put(buffer, at(OpcodeTable.HDR_RETH), va, rkey, length);
        return this;
    }

    public TxPacket aeth(int syndrome, int msn) {
        Aeth.put(buffer, at(OpcodeTable.HDR_AETH), syndrome, msn);
        return this;
    }

    public TxPacket atomicEth(long va, int rkey, long swapAdd, long compare) {
        AtomicEth.put(buffer, at(OpcodeTable.HDR_ATOMIC_ETH), va, rkey, swapAdd, compare);
        return this;
    }

    public TxPacket atomicAck(long originalData) {
        AtomicAckEth.put(buffer, at(OpcodeTable.HDR_ATOMIC_ACK_ETH), originalData);
        return this;
    }

    public TxPacket immData(int imm) {
        ImmDt.put(buffer, at(OpcodeTable.HDR_IMMDT), imm);
        return this;
    }

    public TxPacket invalidateRkey(int rkey) {
        Ieth.put(buffer, at(OpcodeTable.HDR_IETH), rkey);
        return this;
    }

    public TxPacket deth(int qkey, int srcQp) {
        Deth.put(buffer, at(OpcodeTable.HDR_DETH), qkey, srcQp);
        return this;
    }

    /** One VC's count in a PAXI CBFC credit frame (opcode 0xC0, WIRE.md §9). */
    public TxPacket cbfcCredit(int vc, int credits) {
        CbfcEth.credit(buffer, at(OpcodeTable.HDR_CBFC), vc, credits);
        return this;
    }

    /** The 16 reserved bytes of a CNP. */
    public TxPacket cnp() {
        Cnp.put(buffer, at(OpcodeTable.HDR_CNP));
        return this;
    }

    /**
     * An empty INT stack ({@link IntStack}) goes after the pad, for the switches on the way to stamp (RoCEv2, a BTH).
     * A claim for the packet adds {@link IntStack#LENGTH} to its payload length so the slot fits.
     */
    public TxPacket intStack() {
        if (rhShrink == 0) intMode = INT_EMPTY;
        return this;
    }

    /** The INT stack at {@code src[offset..]} goes after the pad, marked as an echo (a responder's ACK). */
    public TxPacket intEcho(DirectBuffer src, int offset) {
        if (rhShrink == 0) {
            intMode = INT_ECHO;
            intSource = src;
            intSourceOffset = offset;
        }
        return this;
    }

    /** Appends {@code length} payload bytes from {@code src} (the one copy from registered memory into the frame). */
    public TxPacket payload(DirectBuffer src, int offset, int length) {
        if (length > 0) payloadBytes += payloads.put(buffer, payloadAt, payloadBytes, src, offset, length);
        payloadLength += length;
        return this;
    }

    /**
     * The payload written stands for {@code length} payload bytes (at least what it holds): a P-FEC parity of described
     * payloads XORs descriptions, but on a real link it is as long as its stripe's longest packet, and the wire counts
     * that. With copied bytes the parity is that long already.
     */
    public TxPacket payloadStandsFor(int length) {
        if (length > payloadLength) payloadLength = length;
        return this;
    }

    /**
     * Writes the pad and PadCnt; returns the end of the section (link side, before framing). PadCnt follows the payload
     * the packet stands for; the pad bytes written keep what the frame holds 4-byte aligned, as a receiver requires, so
     * a described payload (always 8-byte aligned) gets none whatever its length.
     */
    public int finish() {
        int end = payloadAt + payloadBytes;
        int pad = (-payloadLength) & 3;
        int written = (-payloadBytes) & 3;
        for (int i = 0; i < written; i++) buffer.putByte(end + i, (byte) 0);
        if (pad != 0) {
            int flags = buffer.getByte(th + 1);
            // BTH byte 1 keeps PadCnt in bits 5-4, the RH flags byte in bits 1-0
            buffer.putByte(th + 1, (byte) (rhShrink == 0 ? (flags & ~0x30) | pad << 4 : (flags & ~0x03) | pad));
        }
        end += written;
        if (intMode != INT_NONE) {
            buffer.putByte(th + 8, (byte) (buffer.getByte(th + 8) | OpcodeTable.RESV7_INT));
            if (intMode == INT_EMPTY) {
                IntStack.putEmpty(buffer, end);
            } else {
                buffer.putBytes(end, intSource, intSourceOffset, IntStack.LENGTH);
                IntStack.echo(buffer, end, true);
            }
            end += IntStack.LENGTH;
        }
        return end;
    }

    public int opcode() {
        return opcode;
    }

    public int destQp() {
        return destQp;
    }

    public int payloadLength() {
        return payloadLength;
    }

    /** Frame bytes the payload took ({@link #payloadLength()} when the bytes are copied). */
    public int payloadBytes() {
        return payloadBytes;
    }

    public MutableDirectBuffer buffer() {
        return buffer;
    }

    public int frameOffset() {
        return frameOffset;
    }

    /** Where the transport header starts in {@link #buffer()}. */
    public int transportOffset() {
        return th;
    }
}
