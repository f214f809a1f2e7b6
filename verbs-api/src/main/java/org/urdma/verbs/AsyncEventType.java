package org.urdma.verbs;

/** Asynchronous events ({@code ibv_event_type}, the subset urdma raises). */
public enum AsyncEventType {
    QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, LAST_WQE_REACHED, SRQ_LIMIT_REACHED, CQ_ERR
}
