package org.urdma.transport.journal;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.urdma.transport.counters.Counter;
import org.urdma.verbs.QpState;

/**
 * One device's side of the event journal: the engine thread calls these with the time it was given (it never
 * reads a clock). Each call claims a fixed-size record in the {@link Journal}'s ring, fills it and commits
 * it; when the ring is full the event is counted as lost and the engine goes on. Nothing allocates, nothing
 * waits. {@link #NONE} journals nothing at the cost of one branch per call.
 *
 * <p>Single writer: one device's engine thread (the lost counter is written with a release store, like the
 * engine counters); the ring itself takes several devices' threads.
 */
public final class EventJournal {
    /** Journals nothing. */
    public static final EventJournal NONE = new EventJournal(null, -1, null);

    static final int TIME_AT = 0;
    static final int DEVICE_AT = 8;
    static final int QPN_AT = 12;
    static final int A_AT = 16;
    static final int B_AT = 20;
    static final int C_AT = 24;
    /** Every event's record length in the ring (plus the ring's 8-byte header). */
    static final int LENGTH = 32;

    private final RingBuffer ring;
    private final AtomicBuffer buffer;
    private final int device;
    private final AtomicCounter lost;

    EventJournal(RingBuffer ring, int device, AtomicCounter lost) {
        this.ring = ring;
        this.buffer = ring == null ? null : ring.buffer();
        this.device = device;
        this.lost = lost;
    }

    /** A lost-events counter of its own, for a device whose engine counters are not at hand. */
    static AtomicCounter ownLostCounter() {
        return new AtomicCounter(new UnsafeBuffer(BufferUtil.allocateDirectAligned(BitUtil.CACHE_LINE_LENGTH * 2,
            BitUtil.CACHE_LINE_LENGTH)), 0);
    }

    public boolean enabled() {
        return ring != null;
    }

    /** This device's id in the journal (-1 for {@link #NONE}). */
    public int deviceId() {
        return device;
    }

    /** Events dropped because the ring was full. */
    public long lost() {
        return lost == null ? 0 : lost.get();
    }

    AtomicCounter lostCounter() {
        return lost;
    }

    public void qpState(long timeNs, int qpn, QpState from, QpState to) {
        write(EventType.QP_STATE, timeNs, qpn, from.ordinal(), to.ordinal(), 0);
    }

    /** PSNs {@code firstPsn .. firstPsn + count - 1} (mod 2^24) are sent again. */
    public void retransmit(long timeNs, int qpn, int firstPsn, int count, RetransmitReason reason) {
        write(EventType.RETRANSMIT, timeNs, qpn, firstPsn, count, reason.ordinal());
    }

    /** {@code syndrome}: the AETH syndrome byte. */
    public void nakSent(long timeNs, int qpn, int psn, int syndrome) {
        write(EventType.NAK_SENT, timeNs, qpn, psn, syndrome, 0);
    }

    public void nakReceived(long timeNs, int qpn, int psn, int syndrome) {
        write(EventType.NAK_RCVD, timeNs, qpn, psn, syndrome, 0);
    }

    public void rnrNakSent(long timeNs, int qpn, int psn, int syndrome) {
        write(EventType.RNR_NAK_SENT, timeNs, qpn, psn, syndrome, 0);
    }

    public void rnrNakReceived(long timeNs, int qpn, int psn, int syndrome) {
        write(EventType.RNR_NAK_RCVD, timeNs, qpn, psn, syndrome, 0);
    }

    public void cnpSent(long timeNs, int qpn, int psn) {
        write(EventType.CNP_SENT, timeNs, qpn, psn, 0, 0);
    }

    public void cnpReceived(long timeNs, int qpn, int psn) {
        write(EventType.CNP_RCVD, timeNs, qpn, psn, 0, 0);
    }

    /** A CNP for {@code qpn} (the QPID) dropped by PAXI's CNP merge. */
    public void cnpMerged(long timeNs, int qpn, int psn) {
        write(EventType.CNP_MERGED, timeNs, qpn, psn, 0, 0);
    }

    /** {@code priority} -1: an 802.3x PAUSE (every priority). {@code on} false: XON or the pause ran out. */
    public void pause(long timeNs, int priority, int quanta, boolean on) {
        write(on ? EventType.PAUSE_ON : EventType.PAUSE_OFF, timeNs, -1, priority, quanta, 0);
    }

    /** P-FEC rebuilt the lost packet {@code psn} and placed it; {@code byPsn}: the data PSN or parity group base whose arrival let it. */
    public void fecRepaired(long timeNs, int qpn, int psn, int byPsn) {
        write(EventType.FEC_REPAIRED, timeNs, qpn, psn, byPsn, 0);
    }

    /** {@code reason}: the {@code drop_} counter the drop was counted in; {@code qpn} -1 if none. */
    public void drop(long timeNs, int qpn, Counter reason, int psn) {
        write(EventType.DROP, timeNs, qpn, reason.ordinal(), psn, 0);
    }

    private void write(EventType type, long timeNs, int qpn, int a, int b, int c) {
        if (ring == null) {
            return;
        }
        int index = ring.tryClaim(type.typeId(), LENGTH);
        if (index < 0) {
            lost.incrementRelease();
            return;
        }
        AtomicBuffer buf = buffer;
        buf.putLong(index + TIME_AT, timeNs);
        buf.putInt(index + DEVICE_AT, device);
        buf.putInt(index + QPN_AT, qpn);
        buf.putInt(index + A_AT, a);
        buf.putInt(index + B_AT, b);
        buf.putInt(index + C_AT, c);
        ring.commit(index);
    }
}
