package org.urdma.transport.wire;

/**
 * Per-opcode header layout and semantics, like rxe's {@code rxe_opcode.c}: which extended headers follow the
 * BTH (or PAXI RH), in which order, at which offsets, and what the opcode means. The encoder and the decoder
 * both walk {@link #HEADER_ORDER} over a header mask, so they cannot disagree.
 *
 * <p>Extended headers always appear in this order after the BTH/RH (WIRE.md §4, §5, §9, §10):
 * UETH, TS, DETH, RETH, AETH, AETH-EXT, SACK-ETH, AtomicETH, AtomicAckETH, ImmDt, IETH, FEC-ETH, CBFC, CNP.
 * The URDMA headers (UETH, TS, AETH-EXT, SACK-ETH and the per-packet RETH) depend on the packet's BTH resv7 bit
 * and UETH flags, see {@link #headerMask(int, int, int)}; {@link #mask(int)} and {@link #offset(int, int)} give the
 * static layout without them.
 */
public final class OpcodeTable {
    // header bits, in wire order
    public static final int HDR_UETH = 1;
    public static final int HDR_TS = 1 << 1;
    public static final int HDR_DETH = 1 << 2;
    public static final int HDR_RETH = 1 << 3;
    public static final int HDR_AETH = 1 << 4;
    public static final int HDR_AETH_EXT = 1 << 5;
    public static final int HDR_SACK = 1 << 6;
    public static final int HDR_ATOMIC_ETH = 1 << 7;
    public static final int HDR_ATOMIC_ACK_ETH = 1 << 8;
    public static final int HDR_IMMDT = 1 << 9;
    public static final int HDR_IETH = 1 << 10;
    public static final int HDR_FEC_ETH = 1 << 11;
    public static final int HDR_CBFC = 1 << 12;
    public static final int HDR_CNP = 1 << 13;

    /** Header bits in the order the headers appear on the wire. */
    public static final int[] HEADER_ORDER = {
        HDR_UETH, HDR_TS, HDR_DETH, HDR_RETH, HDR_AETH, HDR_AETH_EXT, HDR_SACK, HDR_ATOMIC_ETH, HDR_ATOMIC_ACK_ETH,
        HDR_IMMDT, HDR_IETH, HDR_FEC_ETH, HDR_CBFC, HDR_CNP };
    /** Number of extended header kinds (the size of {@link Packet#headerOffsets}). */
    public static final int HEADER_KINDS = HEADER_ORDER.length;

    // flags
    public static final int REQ = 1;
    public static final int ACK = 1 << 1;
    public static final int SEND = 1 << 2;
    public static final int WRITE = 1 << 3;
    public static final int READ = 1 << 4;
    public static final int ATOMIC = 1 << 5;
    public static final int START = 1 << 6;
    public static final int MIDDLE = 1 << 7;
    public static final int END = 1 << 8;
    public static final int PAYLOAD = 1 << 9;
    public static final int IMM = 1 << 10;
    public static final int INV = 1 << 11;
    /** Read response packets (ACK|READ); per-packet RETH applies to these and to WRITE. */
    public static final int READ_RESPONSE = ACK | READ;

    /** URDMA UETH flag bits (WIRE.md §10). */
    public static final int UETH_TS = 0x80;
    public static final int UETH_PER_PACKET_RETH = 0x40;
    public static final int UETH_SACK = 0x20;
    public static final int UETH_FEC = 0x10;
    /** BTH resv7 bit announcing URDMA extension headers. */
    public static final int RESV7_URDMA = 0x01;
    /** BTH resv7 bit announcing an INT stack ({@link IntStack}) between the pad and the ICRC (RoCEv2). */
    public static final int RESV7_INT = 0x02;

    private static final int[] MASK = new int[256];
    private static final int[] FLAGS = new int[256];
    private static final boolean[] KNOWN = new boolean[256];

    static {
        for (final int t : new int[] { Opcode.TRANSPORT_RC, Opcode.TRANSPORT_UC }) {
            def(t | Opcode.SEND_FIRST, 0, REQ | SEND | START | PAYLOAD);
            def(t | Opcode.SEND_MIDDLE, 0, REQ | SEND | MIDDLE | PAYLOAD);
            def(t | Opcode.SEND_LAST, 0, REQ | SEND | END | PAYLOAD);
            def(t | Opcode.SEND_LAST_WITH_IMM, HDR_IMMDT, REQ | SEND | END | PAYLOAD | IMM);
            def(t | Opcode.SEND_ONLY, 0, REQ | SEND | START | END | PAYLOAD);
            def(t | Opcode.SEND_ONLY_WITH_IMM, HDR_IMMDT, REQ | SEND | START | END | PAYLOAD | IMM);
            def(t | Opcode.RDMA_WRITE_FIRST, HDR_RETH, REQ | WRITE | START | PAYLOAD);
            def(t | Opcode.RDMA_WRITE_MIDDLE, 0, REQ | WRITE | MIDDLE | PAYLOAD);
            def(t | Opcode.RDMA_WRITE_LAST, 0, REQ | WRITE | END | PAYLOAD);
            def(t | Opcode.RDMA_WRITE_LAST_WITH_IMM, HDR_IMMDT, REQ | WRITE | END | PAYLOAD | IMM);
            def(t | Opcode.RDMA_WRITE_ONLY, HDR_RETH, REQ | WRITE | START | END | PAYLOAD);
            def(t | Opcode.RDMA_WRITE_ONLY_WITH_IMM, HDR_RETH | HDR_IMMDT, REQ | WRITE | START | END | PAYLOAD | IMM);
        }
        final int rc = Opcode.TRANSPORT_RC;
        def(rc | Opcode.RDMA_READ_REQUEST, HDR_RETH, REQ | READ | START | END);
        def(rc | Opcode.RDMA_READ_RESPONSE_FIRST, HDR_AETH, ACK | READ | START | PAYLOAD);
        def(rc | Opcode.RDMA_READ_RESPONSE_MIDDLE, 0, ACK | READ | MIDDLE | PAYLOAD);
        def(rc | Opcode.RDMA_READ_RESPONSE_LAST, HDR_AETH, ACK | READ | END | PAYLOAD);
        def(rc | Opcode.RDMA_READ_RESPONSE_ONLY, HDR_AETH, ACK | READ | START | END | PAYLOAD);
        def(rc | Opcode.ACKNOWLEDGE, HDR_AETH, ACK | START | END);
        def(rc | Opcode.ATOMIC_ACKNOWLEDGE, HDR_AETH | HDR_ATOMIC_ACK_ETH, ACK | ATOMIC | START | END);
        def(rc | Opcode.COMPARE_SWAP, HDR_ATOMIC_ETH, REQ | ATOMIC | START | END);
        def(rc | Opcode.FETCH_ADD, HDR_ATOMIC_ETH, REQ | ATOMIC | START | END);
        def(rc | Opcode.SEND_LAST_WITH_INVALIDATE, HDR_IETH, REQ | SEND | END | PAYLOAD | INV);
        def(rc | Opcode.SEND_ONLY_WITH_INVALIDATE, HDR_IETH, REQ | SEND | START | END | PAYLOAD | INV);
        def(Opcode.UD_SEND_ONLY, HDR_DETH, REQ | SEND | START | END | PAYLOAD);
        def(Opcode.UD_SEND_ONLY_WITH_IMM, HDR_DETH | HDR_IMMDT, REQ | SEND | START | END | PAYLOAD | IMM);
        def(Opcode.CNP, HDR_CNP, 0);
        def(Opcode.PAXI_CBFC_CREDIT, HDR_CBFC, 0);
        def(Opcode.URDMA_FEC_PARITY, HDR_FEC_ETH, PAYLOAD);
    }

    private static void def(final int op, final int mask, final int flags) {
        MASK[op] = mask;
        FLAGS[op] = flags;
        KNOWN[op] = true;
    }

    private OpcodeTable() {
    }

    /** True when the opcode is defined (RC/UC/UD rows of WIRE.md §4, CNP, CBFC credit, FEC parity). */
    public static boolean known(final int opcode) {
        return opcode >= 0 && opcode < 256 && KNOWN[opcode];
    }

    /**
     * True when {@code opcode} is valid for the given transport bits ({@link Opcode#TRANSPORT_RC}, UC or UD).
     * RD is not supported.
     */
    public static boolean valid(final int transport, final int opcode) {
        return known(opcode) && opcode < 0x80 && (opcode & 0xE0) == transport;
    }

    /** Static header mask of the opcode (no URDMA extensions), 0 for unknown opcodes. */
    public static int mask(final int opcode) {
        return MASK[opcode & 0xFF];
    }

    /** Semantic flags ({@link #REQ}, {@link #PAYLOAD}, ...) of the opcode. */
    public static int flags(final int opcode) {
        return FLAGS[opcode & 0xFF];
    }

    public static boolean has(final int opcode, final int flag) {
        return (FLAGS[opcode & 0xFF] & flag) != 0;
    }

    /**
     * Header mask of one packet: the static mask plus the URDMA headers. When {@code resv7} has
     * {@link #RESV7_URDMA}: UETH always; TS when UETH flags has {@link #UETH_TS}; AETH-EXT when TS and the opcode has
     * an AETH; SACK-ETH on ACKNOWLEDGE when {@link #UETH_SACK}; a RETH on every RDMA WRITE, READ RESPONSE and RC/UC SEND
     * packet when {@link #UETH_PER_PACKET_RETH}.
     */
    public static int headerMask(final int opcode, final int resv7, final int uethFlags) {
        int mask = MASK[opcode & 0xFF];
        if ((resv7 & RESV7_URDMA) != 0) {
            mask |= HDR_UETH;
            final int flags = FLAGS[opcode & 0xFF];
            if ((uethFlags & UETH_TS) != 0) {
                mask |= HDR_TS;
                if ((mask & HDR_AETH) != 0) {
                    mask |= HDR_AETH_EXT;
                }
            }
            if ((uethFlags & UETH_SACK) != 0 && (opcode & 0x1F) == Opcode.ACKNOWLEDGE && opcode < 0x80) {
                mask |= HDR_SACK;
            }
            // RC/UC SENDs carry one too (VA = offset in the message, R_Key = the SEND's sequence number, DMA length =
            // the message length): the receiver places them into the right receive WQE in any order (docs/WAN.md)
            boolean connectedSend = (flags & SEND) != 0 && (opcode & 0xE0) != Opcode.TRANSPORT_UD;
            if ((uethFlags & UETH_PER_PACKET_RETH) != 0 &&
                ((flags & WRITE) != 0 || (flags & READ_RESPONSE) == READ_RESPONSE || connectedSend)) {
                mask |= HDR_RETH;
            }
        }
        return mask;
    }

    /** Index of a single header bit (0 for UETH .. {@link #HEADER_KINDS} - 1), e.g. into {@link Packet#headerOffsets}. */
    public static int index(final int hdr) {
        return Integer.numberOfTrailingZeros(hdr);
    }

    /**
     * Offset of header {@code hdr} from the start of the BTH for a packet with header {@code mask} (URDMA headers
     * included), or -1 if the mask has no such header; the SACK-ETH, which varies in length, must be the last header
     * before {@code hdr} or absent.
     */
    public static int offsetIn(final int mask, final int hdr, final int sackCount) {
        if ((mask & hdr) == 0) {
            return -1;
        }
        int off = Bth.LENGTH;
        for (final int h : HEADER_ORDER) {
            if (h == hdr) {
                return off;
            }
            if ((mask & h) != 0) {
                off += headerLength(h) + (h == HDR_SACK ? sackCount * SackEth.RANGE_LENGTH : 0);
            }
        }
        return -1;
    }

    /** Fixed length of one header kind; for SACK-ETH the length without ranges. */
    public static int headerLength(final int hdr) {
        return switch (hdr) {
            case HDR_UETH -> Ueth.LENGTH;
            case HDR_TS -> TsHeader.LENGTH;
            case HDR_DETH -> Deth.LENGTH;
            case HDR_RETH -> Reth.LENGTH;
            case HDR_AETH -> Aeth.LENGTH;
            case HDR_AETH_EXT -> AethExt.LENGTH;
            case HDR_SACK -> SackEth.BASE_LENGTH;
            case HDR_ATOMIC_ETH -> AtomicEth.LENGTH;
            case HDR_ATOMIC_ACK_ETH -> AtomicAckEth.LENGTH;
            case HDR_IMMDT -> ImmDt.LENGTH;
            case HDR_IETH -> Ieth.LENGTH;
            case HDR_FEC_ETH -> FecEth.LENGTH;
            case HDR_CBFC -> CbfcEth.LENGTH;
            case HDR_CNP -> Cnp.LENGTH;
            default -> throw new IllegalArgumentException("hdr: not a single header bit: " + hdr);
        };
    }

    /** Total length of the extended headers in {@code mask} (SACK-ETH counted with {@code sackCount} ranges). */
    public static int extendedLength(final int mask, final int sackCount) {
        int len = 0;
        for (final int hdr : HEADER_ORDER) {
            if ((mask & hdr) != 0) {
                len += headerLength(hdr);
            }
        }
        if ((mask & HDR_SACK) != 0) {
            len += sackCount * SackEth.RANGE_LENGTH;
        }
        return len;
    }

    /**
     * Offset of header {@code hdr} from the start of the BTH in the static layout (like rxe's
     * {@code offset[]}), or -1 if the opcode has no such header. For a PAXI RH subtract {@code Bth.LENGTH - Rh.LENGTH}.
     */
    public static int offset(final int opcode, final int hdr) {
        return offsetIn(mask(opcode), hdr, 0);
    }

    /** BTH plus static extended headers, i.e. the offset of the payload in the static layout. */
    public static int headerLengthWithBth(final int opcode) {
        return Bth.LENGTH + extendedLength(mask(opcode), 0);
    }
}
