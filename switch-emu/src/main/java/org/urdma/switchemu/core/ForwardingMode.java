package org.urdma.switchemu.core;

public enum ForwardingMode {
    /** The whole frame is received before it may leave (+ pipeline delay). */
    STORE_AND_FORWARD,
    /** Transmission may start once the first bytes are in (+ pipeline delay), never underrunning. */
    CUT_THROUGH
}
