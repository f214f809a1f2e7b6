package org.urdma.nativeio;

/**
 * PACKET_STATISTICS totals since the socket was opened (the kernel resets its counters on every read;
 * the socket accumulates them). {@code packets} is what the kernel counts as seen, drops included.
 */
public record PacketStatistics(long packets, long drops, long freezeQueueCount) {
}
