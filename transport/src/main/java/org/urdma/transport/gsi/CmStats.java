package org.urdma.transport.gsi;

/** What a CM agent did (its thread writes, others may read stale values). */
public final class CmStats {
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

    @Override
    public String toString() {
        return "CmStats[in " + madsIn + ", out " + madsOut + ", dropped " + dropped + ", requests " + requests + ", established "
                + established + ", duplicates " + duplicates + ", retries " + retries + ", timeouts " + timeouts + ", rej sent "
                + rejectsSent + ", rej rcvd " + rejectsReceived + ", mra sent " + mrasSent + ", mra rcvd " + mrasReceived + "]";
    }
}
