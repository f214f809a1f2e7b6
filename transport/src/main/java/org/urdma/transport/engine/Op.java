package org.urdma.transport.engine;

/** BTH opcode values (WIRE.md §4) and the classification the engine needs. */
public final class Op {
    public static final int RC = 0x00, UC = 0x20, UD = 0x60;

    public static final int SEND_FIRST = 0x00, SEND_MIDDLE = 0x01, SEND_LAST = 0x02, SEND_LAST_IMM = 0x03,
            SEND_ONLY = 0x04, SEND_ONLY_IMM = 0x05;
    public static final int WRITE_FIRST = 0x06, WRITE_MIDDLE = 0x07, WRITE_LAST = 0x08, WRITE_LAST_IMM = 0x09,
            WRITE_ONLY = 0x0A, WRITE_ONLY_IMM = 0x0B;
    public static final int READ_REQUEST = 0x0C;
    public static final int READ_RESP_FIRST = 0x0D, READ_RESP_MIDDLE = 0x0E, READ_RESP_LAST = 0x0F, READ_RESP_ONLY = 0x10;
    public static final int ACK = 0x11, ATOMIC_ACK = 0x12, CMP_SWAP = 0x13, FETCH_ADD = 0x14;
    public static final int SEND_LAST_INV = 0x16, SEND_ONLY_INV = 0x17;

    /** AETH syndromes. */
    public static final int AETH_ACK = 0x00, AETH_RNR_NAK = 0x20, AETH_NAK = 0x60;
    public static final int NAK_PSN_SEQ = 0, NAK_INVALID_REQ = 1, NAK_REMOTE_ACCESS = 2, NAK_REMOTE_OP = 3;
    /** ACK syndrome with credit field 0x1F: no end-to-end credits in use. */
    public static final int AETH_ACK_UNLIMITED = 0x1F;

    private Op() {}

    public static int service(int opcode) {
        return opcode & 0xE0;
    }

    public static int op(int opcode) {
        return opcode & 0x1F;
    }

    public static boolean isResponse(int opcode) {
        int o = op(opcode);
        return service(opcode) == RC && o >= READ_RESP_FIRST && o <= ATOMIC_ACK;
    }

    public static boolean isSend(int o) {
        return o <= SEND_ONLY_IMM || o == SEND_LAST_INV || o == SEND_ONLY_INV;
    }

    public static boolean isWrite(int o) {
        return o >= WRITE_FIRST && o <= WRITE_ONLY_IMM;
    }

    /** First packet of a message (FIRST or ONLY, or a single-packet request). */
    public static boolean isStart(int o) {
        return o == SEND_FIRST || o == SEND_ONLY || o == SEND_ONLY_IMM || o == SEND_ONLY_INV || o == WRITE_FIRST
                || o == WRITE_ONLY || o == WRITE_ONLY_IMM || o == READ_REQUEST || o == CMP_SWAP || o == FETCH_ADD;
    }

    /** Last packet of a message. */
    public static boolean isEnd(int o) {
        return o == SEND_LAST || o == SEND_LAST_IMM || o == SEND_ONLY || o == SEND_ONLY_IMM || o == SEND_LAST_INV
                || o == SEND_ONLY_INV || o == WRITE_LAST || o == WRITE_LAST_IMM || o == WRITE_ONLY || o == WRITE_ONLY_IMM
                || o == READ_REQUEST || o == CMP_SWAP || o == FETCH_ADD;
    }

    public static boolean hasImm(int o) {
        return o == SEND_LAST_IMM || o == SEND_ONLY_IMM || o == WRITE_LAST_IMM || o == WRITE_ONLY_IMM;
    }

    public static boolean hasInv(int o) {
        return o == SEND_LAST_INV || o == SEND_ONLY_INV;
    }

    public static boolean hasReth(int o) {
        return o == WRITE_FIRST || o == WRITE_ONLY || o == WRITE_ONLY_IMM || o == READ_REQUEST;
    }

    /** A middle or first packet: its payload must be exactly one path MTU. */
    public static boolean isFullSize(int o) {
        return o == SEND_FIRST || o == SEND_MIDDLE || o == WRITE_FIRST || o == WRITE_MIDDLE
                || o == READ_RESP_FIRST || o == READ_RESP_MIDDLE;
    }

    public static boolean isMiddleOrLast(int o) {
        return o == SEND_MIDDLE || o == SEND_LAST || o == SEND_LAST_IMM || o == SEND_LAST_INV || o == WRITE_MIDDLE
                || o == WRITE_LAST || o == WRITE_LAST_IMM;
    }
}
