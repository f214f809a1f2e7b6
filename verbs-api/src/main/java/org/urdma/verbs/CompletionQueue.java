package org.urdma.verbs;

/** A completion queue ({@code ibv_cq}). */
public interface CompletionQueue extends AutoCloseable {
    /** Capacity in completions. */
    int capacity();

    /**
     * Moves up to {@code wcs.length} completions into the caller's reusable holders; returns how many.
     * Does not allocate.
     */
    int poll(WorkCompletion[] wcs);

    /** Like {@link #poll(WorkCompletion[])} for at most {@code max} entries. */
    int poll(WorkCompletion[] wcs, int max);

    /**
     * Arms the CQ: the next completion (or the next solicited one when {@code solicitedOnly}) raises one
     * event on the completion channel. As {@code ibv_req_notify_cq}.
     */
    void requestNotify(boolean solicitedOnly);

    /** Completions lost because the CQ was full (a CQ overrun is a fatal error in verbs). */
    long overruns();

    CompletionChannel channel();

    @Override
    void close();
}
