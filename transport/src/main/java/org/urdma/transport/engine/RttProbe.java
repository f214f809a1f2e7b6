package org.urdma.transport.engine;

import org.urdma.transport.wire.Psn;

/**
 * One round-trip sample at a time for an RC requester whose ACKs carry no timestamp (DC mode), when its rate control
 * wants RTTs: the first new SEND/WRITE packet sent while no sample is running is timed and asks for an ACK, and the
 * first ACK that covers it ends the sample. A resend cancels the
 * sample (Karn: an ACK after a resend cannot say which copy it answers). This gives one RTT per round trip, the cadence
 * at which HPCC's {@code rdma-hw.cc} updates TIMELY and DCTCP (an ACK past the sequence sent at the last update).
 */
final class RttProbe {
    private boolean running;
    private int psn;
    private long sentAt;

    /** A sample is running: new packets are not timed until it ends. */
    boolean running() {
        return running;
    }

    /** A new packet {@code packetPsn}, which asked for an ACK, left at {@code now}. */
    void sent(int packetPsn, long now) {
        if (running) return;
        running = true;
        psn = packetPsn;
        sentAt = now;
    }

    /** A packet was sent again: the running sample can no longer be trusted. */
    void resent() {
        running = false;
    }

    /** An ACK through {@code ackedPsn} arrived at {@code now}: the RTT if it ends the running sample, else -1. */
    long acked(int ackedPsn, long now) {
        if (!running || Psn.before(ackedPsn, psn)) return -1;
        running = false;
        return now - sentAt;
    }
}
