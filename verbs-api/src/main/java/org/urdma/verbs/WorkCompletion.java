package org.urdma.verbs;

/** A work completion, as {@code ibv_wc}; a reusable holder that {@link CompletionQueue#poll} fills. */
public final class WorkCompletion {
    /** {@link #flags()} bit: imm_data is valid. */
    public static final int WITH_IMM = 1 << 1;
    /** {@link #flags()} bit: a 40-byte GRH is at the start of the receive buffer (UD). */
    public static final int GRH = 1;
    /** {@link #flags()} bit: invalidated_rkey is valid. */
    public static final int WITH_INV = 1 << 3;

    public long wrId;
    public WcStatus status = WcStatus.SUCCESS;
    public WcOpcode opcode = WcOpcode.SEND;
    public int vendorErr;
    public int byteLen;
    public int immData;
    public int invalidatedRkey;
    public int qpNum;
    public int srcQp;
    public int flags;
    public int pkeyIndex;

    public long wrId() { return wrId; }
    public WcStatus status() { return status; }
    public WcOpcode opcode() { return opcode; }
    public int byteLen() { return byteLen; }
    public int immData() { return immData; }
    public int invalidatedRkey() { return invalidatedRkey; }
    public int qpNum() { return qpNum; }
    public int srcQp() { return srcQp; }
    public int flags() { return flags; }
    public boolean hasImm() { return (flags & WITH_IMM) != 0; }
    public boolean hasInvalidate() { return (flags & WITH_INV) != 0; }

    @Override
    public String toString() {
        return "wc[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen
                + ", qp=" + qpNum + ", srcQp=" + srcQp + ", flags=" + flags + ", imm=" + immData + "]";
    }
}
