package org.urdma.express.progress;

import java.util.concurrent.atomic.AtomicLong;

/** What a copy has done so far, updated by its threads and read by the progress line and the summary. */
public final class TransferCounters {
    public final AtomicLong bytesTotal = new AtomicLong();
    public final AtomicLong filesTotal = new AtomicLong();
    /** Data bytes whose WRITE completed (resends included). */
    public final AtomicLong bytesSent = new AtomicLong();
    /** Data bytes of files verified at the destination. */
    public final AtomicLong bytesVerified = new AtomicLong();
    public final AtomicLong filesVerified = new AtomicLong();
    /** Blocks sent again because the server asked (a hash mismatch, a changed durable block). */
    public final AtomicLong resentBlocks = new AtomicLong();
    public final AtomicLong resentBytes = new AtomicLong();
    /** Of those, blocks whose placed bytes did not hash to the sender's hash (the end-to-end check caught them). */
    public final AtomicLong repaired = new AtomicLong();
    /** Blocks read and hashed at the source. */
    public final AtomicLong hashesComputed = new AtomicLong();
}
