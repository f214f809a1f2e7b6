package org.urdma.switchemu.rt;

import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.PsnDropRule;
import org.urdma.transport.impair.ReleaseHeap;

/**
 * One port of the real-time driver: its {@link FramePort}, optional impairment per direction with the
 * {@link ReleaseHeap} that holds delayed frames, and the driver's own counters (what happens outside
 * the switch core). Owned by the driver thread.
 */
public final class RtPort {
    final int index;
    final String name;
    final String peer;
    final FramePort io;
    final Impairment ingress;
    final Impairment egress;
    final ReleaseHeap ingressHeap;
    final ReleaseHeap egressHeap;
    FramePort.Receiver receiver;
    /** PSN drop pattern of frames entering and leaving here (null: none); checked before the netem stage. */
    PsnDropRule dropIn;
    PsnDropRule dropOut;

    long txRefused;
    long delayFull;
    long delayed;
    long lateSumNs;
    long lateMaxNs;

    RtPort(int index, String name, String peer, FramePort io, Impairment ingress, Impairment egress, long heapBytes) {
        this.index = index;
        this.name = name;
        this.peer = peer;
        this.io = io;
        this.ingress = ingress;
        this.egress = egress;
        // the whole budget made now: growing would copy megabytes on the forwarding thread and make frames late
        this.ingressHeap = ingress == null ? null : new ReleaseHeap(heapBytes, 256);
        this.egressHeap = egress == null ? null : new ReleaseHeap(heapBytes, 256);
    }

    public int index() {
        return index;
    }

    /** The port's name (its interface in the switch namespace). */
    public String name() {
        return name;
    }

    /** Name of the node at the other end of the link (from the topology), or null. */
    public String peer() {
        return peer;
    }

    public FramePort io() {
        return io;
    }

    /** Impairment of frames entering the switch here, or null. */
    public Impairment ingressImpairment() {
        return ingress;
    }

    /** Impairment of frames leaving the switch here, or null. */
    public Impairment egressImpairment() {
        return egress;
    }

    /** The PSN drop rule of this port's link, or null. */
    public PsnDropRule psnDropRule() {
        return dropOut != null ? dropOut : dropIn;
    }

    /** Frames the port would not take (TX ring full, too long): dropped. */
    public long txRefused() {
        return txRefused;
    }

    /** Frames an impairment delay could not hold (heap full): dropped. */
    public long delayFull() {
        return delayFull;
    }

    /** Frames held by impairment delay right now. */
    public int held() {
        return (ingressHeap == null ? 0 : ingressHeap.size()) + (egressHeap == null ? 0 : egressHeap.size());
    }

    /** Frames released after an impairment delay. */
    public long delayedFrames() {
        return delayed;
    }

    /** Mean time between a delayed frame's release time and when the driver let it go, ns. */
    public double meanReleaseLatenessNs() {
        return delayed == 0 ? 0 : lateSumNs / (double) delayed;
    }

    public long maxReleaseLatenessNs() {
        return lateMaxNs;
    }
}
