package org.urdma.transport.gsi;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;

/**
 * What a CM agent did (its thread writes, others may read stale values), also counted in the device's engine
 * counters ({@code cm_*}, {@code drop_cm_mad}) when given them: the CM thread is those counters' only writer.
 */
public final class CmStats {
    private EngineCounters counters;

    public long madsIn;
    public long madsOut;
    /** MADs that were not CM Sends of class version 2 (counted and dropped). */
    public long dropped;
    public long requests;
    public long established;
    public long duplicates;
    public long retries;
    public long timeouts;
    public long rejectsSent;
    public long rejectsReceived;
    public long mrasSent;
    public long mrasReceived;
    public long disconnectsCrossed;
    /** REQs refused at once because their listener's backlog was full. */
    public long backlogFull;
    /** MRAed REQs dropped because their active side stopped resending (it gave up). */
    public long abandoned;

    /** Also counts into {@code c} (null: only here). */
    public void counters(EngineCounters c) {
        this.counters = c;
    }

    void count(Counter c) {
        if (counters != null) counters.increment(c);
    }

    void madIn() { madsIn++; count(Counter.CM_MADS_RCVD); }
    void madOut() { madsOut++; count(Counter.CM_MADS_SENT); }
    void drop() { dropped++; count(Counter.DROP_CM_MAD); }
    void request() { requests++; }
    void establish() { established++; count(Counter.CM_ESTABLISHED); }
    void duplicate() { duplicates++; count(Counter.CM_DUPLICATES); }
    void retry() { retries++; count(Counter.CM_RETRIES); }
    void timeout() { timeouts++; count(Counter.CM_TIMEOUTS); }
    void rejectSent() { rejectsSent++; count(Counter.CM_REJ_SENT); }
    void rejectReceived() { rejectsReceived++; count(Counter.CM_REJ_RCVD); }
    void mraSent() { mrasSent++; count(Counter.CM_MRA_SENT); }
    void mraReceived() { mrasReceived++; }
    void disconnectCrossed() { disconnectsCrossed++; }
    void backlogFull() { backlogFull++; }
    void abandon() { abandoned++; }

    @Override
    public String toString() {
        return "CmStats[in " + madsIn + ", out " + madsOut + ", dropped " + dropped + ", requests " + requests + ", established "
                + established + ", duplicates " + duplicates + ", retries " + retries + ", timeouts " + timeouts + ", rej sent "
                + rejectsSent + ", rej rcvd " + rejectsReceived + ", mra sent " + mrasSent + ", mra rcvd " + mrasReceived + ", backlog full " + backlogFull + ", abandoned " + abandoned + "]";
    }
}
