package org.urdma.transport.engine;

import org.urdma.transport.packet.RxPacket;

/**
 * How an RC requester takes READ responses, chosen once per connection at RTS: in PSN order ({@link InOrderReads}, DC
 * mode) or placed on arrival by their own RETH ({@link WanReads}, WAN mode).
 */
interface ReadResponses {
    /** A READ response ({@code o}: its 5-bit opcode). */
    void onResponse(RxPacket p, int o, long now);

    /** The head WQE (index {@code head}, slot {@code s}) is a READ an ACK reached: true when it retired whole. */
    boolean completeHead(long head, int s, long now);

    /** A positive ACK covered everything through {@code psn}. */
    void onAck(int psn);

    /** The ACK timeout fired with work outstanding. */
    void onTimeout(long now);
}
