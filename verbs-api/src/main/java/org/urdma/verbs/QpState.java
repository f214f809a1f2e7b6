package org.urdma.verbs;

/** Queue pair states, as {@code ibv_qp_state}. */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR
}
