package org.urdma.transport.engine;

import org.urdma.transport.packet.RxPacket;

/**
 * How an RC responder takes requests and writes its ACKs, chosen once per connection at RTR: in PSN order
 * ({@link InOrderReceiver}, DC mode) or placed on arrival in any order ({@link WanReceiver}, WAN mode).
 */
interface RcReceiver {
    /** An RC request for this QP. */
    void onRequest(RxPacket p, long now);

    /** Sends an ACK, NAK or RNR NAK with this receiver's headers; false on back-pressure. */
    boolean sendAck(int syndrome, int psn, long now);

    /** After an ACK: whether another should follow at once (a full SACK-ETH left gaps unreported). */
    boolean moreToReport();

    /** The QP's SACK timer fired. */
    void onSackTimer(long now);
}
