package org.urdma.verbs;

/** Work completion opcode, as {@code ibv_wc_opcode}. */
public enum WcOpcode {
    SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, BIND_MW, LOCAL_INV,
    /** Receive of a SEND (any flavour). */
    RECV,
    /** Receive of an RDMA WRITE with immediate data. */
    RECV_RDMA_WITH_IMM;

    private static final WcOpcode[] VALUES = values();

    public static WcOpcode of(int ordinal) {
        return VALUES[ordinal];
    }
}
