package org.urdma.transport.link;

import org.urdma.transport.engine.TransportPacket;

/**
 * One device's attachment to a network: it encodes packets into frames on send and decodes frames into
 * packets on receive. Protocol-side calls only (no threads or clocks inside): {@code now} is passed in.
 */
public interface Link {
    /** Encodes and queues one packet; false when the link cannot take it now (back-pressure, try later). */
    boolean send(TransportPacket packet, long now);

    /** Delivers up to {@code limit} arrived packets to {@code sink}; returns how many frames it consumed. */
    int receive(long now, PacketSink sink, int limit);

    /** Housekeeping for time-based behaviour on the send side (e.g. releasing held frames); returns work done. */
    default int flush(long now) {
        return 0;
    }

    /** Earliest time something will be ready on this link (arrival or held frame), or Long.MAX_VALUE. */
    default long nextEventTime() {
        return Long.MAX_VALUE;
    }

    /** Largest payload a packet may carry on this link (its path MTU ceiling). */
    int maxPayload();

    /** Entry {@code index} of the port's GID table, or null when the link has no addressed port (in-memory links). */
    default org.urdma.verbs.Gid gid(int index) {
        return null;
    }
}
