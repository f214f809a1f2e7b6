package org.urdma.verbs;

/** Send work request flags, bit values as {@code ibv_send_flags}. */
public final class SendFlags {
    /** Wait for all prior READ and atomic operations to complete before starting this one. */
    public static final int FENCE = 1;
    /** Generate a work completion even when the QP is not created with {@code sqSigAll}. */
    public static final int SIGNALED = 1 << 1;
    /** Ask the receiver for a solicited event (SE bit). */
    public static final int SOLICITED = 1 << 2;
    /** Copy the data out of the SGEs at post time; lkeys are not checked. */
    public static final int INLINE = 1 << 3;
    public static final int ALL = FENCE | SIGNALED | SOLICITED | INLINE;

    private SendFlags() {}
}
