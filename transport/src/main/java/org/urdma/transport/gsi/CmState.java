package org.urdma.transport.gsi;

/** States of one connection's CM (IBTA 12.9.6, the kernel's enum ib_cm_state), named as the spec names them. */
public enum CmState {
    IDLE,
    REQ_SENT,
    MRA_REQ_RCVD,
    REQ_RCVD,
    MRA_REQ_SENT,
    REP_SENT,
    ESTABLISHED,
    DREQ_SENT,
    TIMEWAIT,
    SIDR_REQ_SENT
}
