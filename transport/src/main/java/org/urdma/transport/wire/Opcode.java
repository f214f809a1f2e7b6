package org.urdma.transport.wire;

/**
 * BTH / RH opcode values (WIRE.md §4) plus the project's manufacturer-specific opcodes.
 * The top three bits select the transport (RC 0x00, UC 0x20, RD 0x40, UD 0x60); the low five the operation.
 */
public final class Opcode {
    public static final int TRANSPORT_RC = 0x00;
    public static final int TRANSPORT_UC = 0x20;
    public static final int TRANSPORT_RD = 0x40;
    public static final int TRANSPORT_UD = 0x60;

    // low five bits: operation
    public static final int SEND_FIRST = 0x00;
    public static final int SEND_MIDDLE = 0x01;
    public static final int SEND_LAST = 0x02;
    public static final int SEND_LAST_WITH_IMM = 0x03;
    public static final int SEND_ONLY = 0x04;
    public static final int SEND_ONLY_WITH_IMM = 0x05;
    public static final int RDMA_WRITE_FIRST = 0x06;
    public static final int RDMA_WRITE_MIDDLE = 0x07;
    public static final int RDMA_WRITE_LAST = 0x08;
    public static final int RDMA_WRITE_LAST_WITH_IMM = 0x09;
    public static final int RDMA_WRITE_ONLY = 0x0A;
    public static final int RDMA_WRITE_ONLY_WITH_IMM = 0x0B;
    public static final int RDMA_READ_REQUEST = 0x0C;
    public static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    public static final int RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    public static final int RDMA_READ_RESPONSE_LAST = 0x0F;
    public static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    public static final int ACKNOWLEDGE = 0x11;
    public static final int ATOMIC_ACKNOWLEDGE = 0x12;
    public static final int COMPARE_SWAP = 0x13;
    public static final int FETCH_ADD = 0x14;
    public static final int SEND_LAST_WITH_INVALIDATE = 0x16;
    public static final int SEND_ONLY_WITH_INVALIDATE = 0x17;

    public static final int RC_SEND_FIRST = TRANSPORT_RC | SEND_FIRST;
    public static final int RC_SEND_MIDDLE = TRANSPORT_RC | SEND_MIDDLE;
    public static final int RC_SEND_LAST = TRANSPORT_RC | SEND_LAST;
    public static final int RC_SEND_LAST_WITH_IMM = TRANSPORT_RC | SEND_LAST_WITH_IMM;
    public static final int RC_SEND_ONLY = TRANSPORT_RC | SEND_ONLY;
    public static final int RC_SEND_ONLY_WITH_IMM = TRANSPORT_RC | SEND_ONLY_WITH_IMM;
    public static final int RC_RDMA_WRITE_FIRST = TRANSPORT_RC | RDMA_WRITE_FIRST;
    public static final int RC_RDMA_WRITE_MIDDLE = TRANSPORT_RC | RDMA_WRITE_MIDDLE;
    public static final int RC_RDMA_WRITE_LAST = TRANSPORT_RC | RDMA_WRITE_LAST;
    public static final int RC_RDMA_WRITE_LAST_WITH_IMM = TRANSPORT_RC | RDMA_WRITE_LAST_WITH_IMM;
    public static final int RC_RDMA_WRITE_ONLY = TRANSPORT_RC | RDMA_WRITE_ONLY;
    public static final int RC_RDMA_WRITE_ONLY_WITH_IMM = TRANSPORT_RC | RDMA_WRITE_ONLY_WITH_IMM;
    public static final int RC_RDMA_READ_REQUEST = TRANSPORT_RC | RDMA_READ_REQUEST;
    public static final int RC_RDMA_READ_RESPONSE_FIRST = TRANSPORT_RC | RDMA_READ_RESPONSE_FIRST;
    public static final int RC_RDMA_READ_RESPONSE_MIDDLE = TRANSPORT_RC | RDMA_READ_RESPONSE_MIDDLE;
    public static final int RC_RDMA_READ_RESPONSE_LAST = TRANSPORT_RC | RDMA_READ_RESPONSE_LAST;
    public static final int RC_RDMA_READ_RESPONSE_ONLY = TRANSPORT_RC | RDMA_READ_RESPONSE_ONLY;
    public static final int RC_ACKNOWLEDGE = TRANSPORT_RC | ACKNOWLEDGE;
    public static final int RC_ATOMIC_ACKNOWLEDGE = TRANSPORT_RC | ATOMIC_ACKNOWLEDGE;
    public static final int RC_COMPARE_SWAP = TRANSPORT_RC | COMPARE_SWAP;
    public static final int RC_FETCH_ADD = TRANSPORT_RC | FETCH_ADD;
    public static final int RC_SEND_LAST_WITH_INVALIDATE = TRANSPORT_RC | SEND_LAST_WITH_INVALIDATE;
    public static final int RC_SEND_ONLY_WITH_INVALIDATE = TRANSPORT_RC | SEND_ONLY_WITH_INVALIDATE;

    public static final int UC_SEND_FIRST = TRANSPORT_UC | SEND_FIRST;
    public static final int UC_SEND_MIDDLE = TRANSPORT_UC | SEND_MIDDLE;
    public static final int UC_SEND_LAST = TRANSPORT_UC | SEND_LAST;
    public static final int UC_SEND_LAST_WITH_IMM = TRANSPORT_UC | SEND_LAST_WITH_IMM;
    public static final int UC_SEND_ONLY = TRANSPORT_UC | SEND_ONLY;
    public static final int UC_SEND_ONLY_WITH_IMM = TRANSPORT_UC | SEND_ONLY_WITH_IMM;
    public static final int UC_RDMA_WRITE_FIRST = TRANSPORT_UC | RDMA_WRITE_FIRST;
    public static final int UC_RDMA_WRITE_MIDDLE = TRANSPORT_UC | RDMA_WRITE_MIDDLE;
    public static final int UC_RDMA_WRITE_LAST = TRANSPORT_UC | RDMA_WRITE_LAST;
    public static final int UC_RDMA_WRITE_LAST_WITH_IMM = TRANSPORT_UC | RDMA_WRITE_LAST_WITH_IMM;
    public static final int UC_RDMA_WRITE_ONLY = TRANSPORT_UC | RDMA_WRITE_ONLY;
    public static final int UC_RDMA_WRITE_ONLY_WITH_IMM = TRANSPORT_UC | RDMA_WRITE_ONLY_WITH_IMM;

    public static final int UD_SEND_ONLY = TRANSPORT_UD | SEND_ONLY;
    public static final int UD_SEND_ONLY_WITH_IMM = TRANSPORT_UD | SEND_ONLY_WITH_IMM;

    /** RoCEv2 congestion notification packet (PAXI's "RH opcode 10" maps here). */
    public static final int CNP = 0x81;
    /** PAXI credit-based flow control credit return: 8 x 16-bit credits per VC (WIRE.md §9). */
    public static final int PAXI_CBFC_CREDIT = 0xC0;
    /** URDMA P-FEC parity packet carrying a FEC-ETH (WIRE.md §10). */
    public static final int URDMA_FEC_PARITY = 0xC1;

    private static final String[] OPERATION_NAMES = new String[32];
    private static final String[] NAMES = new String[256];

    static {
        final String[] ops = {
            "SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMM", "SEND_ONLY", "SEND_ONLY_WITH_IMM",
            "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST", "RDMA_WRITE_LAST_WITH_IMM",
            "RDMA_WRITE_ONLY", "RDMA_WRITE_ONLY_WITH_IMM", "RDMA_READ_REQUEST", "RDMA_READ_RESPONSE_FIRST",
            "RDMA_READ_RESPONSE_MIDDLE", "RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY", "ACKNOWLEDGE",
            "ATOMIC_ACKNOWLEDGE", "COMPARE_SWAP", "FETCH_ADD", "RESYNC", "SEND_LAST_WITH_INVALIDATE",
            "SEND_ONLY_WITH_INVALIDATE" };
        System.arraycopy(ops, 0, OPERATION_NAMES, 0, ops.length);
        final String[] transports = { "RC", "UC", "RD", "UD" };
        for (int op = 0; op < 256; op++) {
            final String name;
            if (op < 0x80 && OPERATION_NAMES[op & 0x1F] != null) {
                name = transports[op >> 5] + "_" + OPERATION_NAMES[op & 0x1F];
            } else if (op == CNP) {
                name = "CNP";
            } else if (op == PAXI_CBFC_CREDIT) {
                name = "PAXI_CBFC_CREDIT";
            } else if (op == URDMA_FEC_PARITY) {
                name = "URDMA_FEC_PARITY";
            } else {
                name = String.format("UNKNOWN_0x%02X", op);
            }
            NAMES[op] = name;
        }
    }

    private Opcode() {
    }

    /** Symbolic name, e.g. {@code RC_SEND_FIRST}, {@code UD_SEND_ONLY_WITH_IMM}, {@code CNP}; never allocates. */
    public static String name(final int opcode) {
        return NAMES[opcode & 0xFF];
    }

    /** Transport bits (0x00 RC, 0x20 UC, 0x40 RD, 0x60 UD) of an IBTA opcode. */
    public static int transport(final int opcode) {
        return opcode & 0xE0;
    }

    /** Operation bits (low five) of an IBTA opcode. */
    public static int operation(final int opcode) {
        return opcode & 0x1F;
    }

    /** Parses a name as {@link #name(int)} prints it, or a number such as {@code 0x64}. */
    public static int parse(final String text) {
        final String t = text.trim();
        for (int op = 0; op < 256; op++) {
            if (NAMES[op].equalsIgnoreCase(t) && OpcodeTable.known(op)) {
                return op;
            }
        }
        try {
            final int v = Integer.decode(t);
            if (v >= 0 && v < 256) {
                return v;
            }
        } catch (final NumberFormatException ignored) {
            // fall through to the error below
        }
        throw new IllegalArgumentException("opcode: '" + text + "' is neither a known opcode name nor 0..255");
    }
}
