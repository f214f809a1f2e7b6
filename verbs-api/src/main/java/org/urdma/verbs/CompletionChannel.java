package org.urdma.verbs;

/** A completion event channel ({@code ibv_comp_channel}): wakes a thread when an armed CQ gets a completion. */
public interface CompletionChannel extends AutoCloseable {
    /**
     * Blocks up to {@code timeoutNanos} for an event; returns the CQ that raised it, or null on timeout.
     * As {@code ibv_get_cq_event}; re-arm with {@link CompletionQueue#requestNotify}.
     */
    CompletionQueue await(long timeoutNanos) throws InterruptedException;

    /** Non-blocking form of {@link #await}. */
    CompletionQueue poll();

    @Override
    void close();
}
