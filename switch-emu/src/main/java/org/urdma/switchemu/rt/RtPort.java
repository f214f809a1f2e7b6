package org.urdma.switchemu.rt;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.PacketStatistics;
import org.urdma.switchemu.impair.Impairment;
import org.urdma.transport.pcap.PcapWriter;

/**
 * One switch port of the real-time driver: its AF_PACKET socket (zero-copy views of both rings),
 * optional impairment per direction with its delay line, an optional pcap, and the driver's own
 * counters (what happens outside the switch core). Owned by the driver thread.
 */
public final class RtPort {
    final int index;
    final String interfaceName;
    final String peer;
    final AfPacketSocket socket;
    final UnsafeBuffer rxRing = new UnsafeBuffer(0, 0);
    final UnsafeBuffer txRing;
    final int txMaxFrame;
    final Impairment ingress;
    final Impairment egress;
    final ReleaseHeap ingressLine;
    final ReleaseHeap egressLine;
    final PcapWriter pcap;
    FrameHandler handler;

    long rxTruncated;
    long rxLosing;
    long txRingFull;
    long txTooLong;
    long delayLineFull;
    long delayedFrames;
    long lateSumNs;
    long lateMaxNs;
    PacketStatistics closedStatistics;

    RtPort(int index, String interfaceName, String peer, AfPacketSocket socket, Impairment ingress, Impairment egress,
           long delayLineBytes, PcapWriter pcap) {
        this.index = index;
        this.interfaceName = interfaceName;
        this.peer = peer;
        this.socket = socket;
        this.txRing = new UnsafeBuffer(socket.txBuffer().address(), Math.toIntExact(socket.txBuffer().byteSize()));
        this.txMaxFrame = socket.txMaxFrameLength();
        this.ingress = ingress;
        this.egress = egress;
        this.ingressLine = ingress == null ? null : new ReleaseHeap(delayLineBytes, 256);
        this.egressLine = egress == null ? null : new ReleaseHeap(delayLineBytes, 256);
        this.pcap = pcap;
    }

    public int index() {
        return index;
    }

    public String interfaceName() {
        return interfaceName;
    }

    /** Name of the node at the other end of the link (from the topology), or null. */
    public String peer() {
        return peer;
    }

    /** Impairment of frames entering the switch here, or null. */
    public Impairment ingressImpairment() {
        return ingress;
    }

    /** Impairment of frames leaving the switch here, or null. */
    public Impairment egressImpairment() {
        return egress;
    }

    /** Frames longer than the RX ring slot (cut by the kernel): dropped. */
    public long rxTruncated() {
        return rxTruncated;
    }

    /** Times the kernel flagged that it had dropped frames because the RX ring was full. */
    public long rxLosing() {
        return rxLosing;
    }

    /** Frames dropped because the TX ring stayed full. */
    public long txRingFull() {
        return txRingFull;
    }

    /** Frames longer than the egress interface accepts: dropped. */
    public long txTooLong() {
        return txTooLong;
    }

    /** Frames an impairment delay could not hold (delay line full): dropped. */
    public long delayLineFull() {
        return delayLineFull;
    }

    /** Frames released from this port's delay lines. */
    public long delayedFrames() {
        return delayedFrames;
    }

    /** Mean time between a delayed frame's release time and when the driver let it go, ns. */
    public double meanReleaseLatenessNs() {
        return delayedFrames == 0 ? 0 : lateSumNs / (double) delayedFrames;
    }

    public long maxReleaseLatenessNs() {
        return lateMaxNs;
    }

    /** The kernel's cumulative counters of this socket (frames seen, dropped for a full ring). */
    public PacketStatistics kernelStatistics() {
        return closedStatistics != null ? closedStatistics : socket.statistics();
    }

    void close() {
        if (socket.isClosed()) {
            return;
        }
        try {
            closedStatistics = socket.statistics();
        } finally {
            socket.close();
        }
    }
}
