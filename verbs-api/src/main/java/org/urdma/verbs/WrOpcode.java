package org.urdma.verbs;

/** Send work request opcodes, as {@code ibv_wr_opcode}. */
public enum WrOpcode {
    RDMA_WRITE(WcOpcode.RDMA_WRITE),
    RDMA_WRITE_WITH_IMM(WcOpcode.RDMA_WRITE),
    SEND(WcOpcode.SEND),
    SEND_WITH_IMM(WcOpcode.SEND),
    RDMA_READ(WcOpcode.RDMA_READ),
    ATOMIC_CMP_AND_SWP(WcOpcode.COMP_SWAP),
    ATOMIC_FETCH_AND_ADD(WcOpcode.FETCH_ADD),
    LOCAL_INV(WcOpcode.LOCAL_INV),
    SEND_WITH_INV(WcOpcode.SEND),
    /** Binds a memory window (type 1 through {@link QueuePair#bindMw}, type 2 posted directly); a local operation. */
    BIND_MW(WcOpcode.BIND_MW);

    private static final WrOpcode[] VALUES = values();
    private final WcOpcode completion;

    WrOpcode(WcOpcode completion) {
        this.completion = completion;
    }

    /** The opcode the sender's work completion reports. */
    public WcOpcode completion() {
        return completion;
    }

    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    public boolean isSend() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV;
    }

    public boolean isWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
    }

    /** Whether the operation reads remote memory into local memory (READ, atomics), i.e. needs LOCAL_WRITE on its SGEs. */
    public boolean writesLocalMemory() {
        return this == RDMA_READ || isAtomic();
    }

    /** Whether this operation is supported on the given service type (IBTA table 4: UC has no READ/atomics, UD only SEND). */
    public boolean supportedOn(QpType type) {
        return switch (type) {
            case RC -> true;
            case UC -> this == SEND || this == SEND_WITH_IMM || this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM
                    || this == LOCAL_INV || this == BIND_MW;
            case UD -> this == SEND || this == SEND_WITH_IMM;
        };
    }

    /** Whether the operation acts on this device only (no packets), completed in order with the rest. */
    public boolean isLocal() {
        return this == LOCAL_INV || this == BIND_MW;
    }

    public static WrOpcode of(int ordinal) {
        return VALUES[ordinal];
    }
}
