package org.urdma.transport.packet;

import org.urdma.verbs.Gid;

/**
 * One device's attachment to a network. The engine builds each packet in place: {@link #claim} hands out the frame
 * slot with the transport section's position, the engine writes BTH, extended headers and payload through the
 * {@link TxPacket}, and {@link #commit} adds what the wire format wraps around them (Ethernet/VLAN, GRH or IPv4/UDP,
 * AFH, ICRC). Protocol-side calls only, no threads or clocks inside: {@code now} is passed in.
 */
public interface Link {
    /**
     * A frame slot for one packet of {@code opcode} carrying {@code payloadLength} bytes, or null when the link cannot
     * take it now (back-pressure: try later). Exactly one {@link #commit} follows a successful claim, before the next
     * claim. A packet the link cannot carry (too long, an opcode its framing lacks) gets a slot that
     * {@link #commit} drops and counts, like a NIC would. {@code route} is where the packet will go: its traffic class
     * gives the packet's priority, which a link may have paused (PFC, PAUSE) or run out of credits for (CBFC).
     */
    TxPacket claim(int opcode, int payloadLength, Route route, long now);

    /** Frames the packet just written into the claimed slot and queues it towards {@code route}. */
    void commit(TxPacket packet, Route route, long now);

    /** Delivers up to {@code limit} arrived packets to {@code sink}; returns how many frames it consumed. */
    int receive(long now, PacketSink sink, int limit);

    /** Housekeeping for time-based behaviour on the send side and the kernel send; returns work done. */
    default int flush(long now) {
        return 0;
    }

    /** Earliest time something will be ready on this link (arrival, held frame, end of a pause), or Long.MAX_VALUE. */
    default long nextEventTime() {
        return Long.MAX_VALUE;
    }

    /**
     * Accepts frames to group MAC {@code mac} (low 48 bits), as a NIC's multicast filter: a QP attached to a group.
     * Control path, engine thread. Links that filter nothing (in-memory pairs) ignore it.
     */
    default void joinMulticast(long mac) {
    }

    /** Stops accepting group MAC {@code mac} (its last group was left). */
    default void leaveMulticast(long mac) {
    }

    /** Largest payload a packet may carry on this link (its path MTU ceiling). */
    int maxPayload();

    /** Entry {@code index} of the port's GID table, or null when the link has no addressed port (in-memory links). */
    default Gid gid(int index) {
        return null;
    }
}
