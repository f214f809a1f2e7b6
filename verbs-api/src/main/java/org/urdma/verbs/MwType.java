package org.urdma.verbs;

/** Memory window types, as {@code ibv_mw_type}. */
public enum MwType {
    /** Bound by {@link QueuePair#bindMw}, usable through any QP of its protection domain; never invalidated remotely. */
    TYPE_1,
    /** Bound by a {@link WrOpcode#BIND_MW} work request to the QP that posts it (type 2B), invalidated by LOCAL_INV or SEND_WITH_INV. */
    TYPE_2
}
