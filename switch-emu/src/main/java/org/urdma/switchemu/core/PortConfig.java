package org.urdma.switchemu.core;

import org.urdma.switchemu.frame.PortFormat;

/** Configuration of one switch port (fluent; checked by {@link #validate(int)}). */
public final class PortConfig {
    long mac;
    long rateBps = 10_000_000_000L;
    PortFormat format = PortFormat.ETHERNET;
    ClassifyMode classify = ClassifyMode.PCP;
    int defaultPriority;
    final int[] dscpToPriority = new int[64];
    int pfcMask;
    int strictMask;
    final int[] weights = {1, 1, 1, 1, 1, 1, 1, 1};
    int ecnMask;
    long kminBytes = 5_000;
    long kmaxBytes = 200_000;
    double pmax = 0.01;
    /** Stamps the INT stack of RoCEv2 packets that carry one as they leave (HPCC). */
    boolean intStamp;
    long headroomBytes = 32_000;

    public PortConfig() {
        for (int d = 0; d < 64; d++) {
            dscpToPriority[d] = d >>> 3;
        }
    }

    /** Source MAC of the PFC frames this port sends. */
    public PortConfig mac(long mac) {
        this.mac = mac;
        return this;
    }

    public PortConfig rateBps(long rateBps) {
        this.rateBps = rateBps;
        return this;
    }

    public PortConfig format(PortFormat format) {
        this.format = format;
        return this;
    }

    public PortConfig classify(ClassifyMode classify) {
        this.classify = classify;
        return this;
    }

    public PortConfig defaultPriority(int priority) {
        this.defaultPriority = priority;
        return this;
    }

    public PortConfig dscp(int dscp, int priority) {
        if (dscp < 0 || dscp > 63) {
            throw new IllegalArgumentException("dscp must be 0..63, was " + dscp);
        }
        dscpToPriority[dscp] = priority;
        return this;
    }

    /** Lossless priorities: PFC is sent for them on XOFF/XON and honoured when received. */
    public PortConfig pfcMask(int mask) {
        this.pfcMask = mask;
        return this;
    }

    /** Priorities served by strict priority (higher number first) before the DWRR ones. */
    public PortConfig strictMask(int mask) {
        this.strictMask = mask;
        return this;
    }

    /** DWRR weight of a priority (quantum = weight × largest frame). */
    public PortConfig weight(int priority, int weight) {
        weights[priority & 7] = weight;
        return this;
    }

    /**
     * In-band telemetry at egress (HPCC): a RoCEv2 packet that carries an INT stack gets this port's hop (its rate,
     * the bytes left queued, the bytes sent so far, the time it starts leaving) as it is sent.
     */
    public PortConfig intStamp(boolean on) {
        this.intStamp = on;
        return this;
    }

    public boolean intStamp() {
        return intStamp;
    }

    /** ECN (RED) marking at dequeue on these priorities: kmin/kmax in queue bytes, pmax at kmax. */
    public PortConfig ecn(int mask, long kminBytes, long kmaxBytes, double pmax) {
        this.ecnMask = mask;
        this.kminBytes = kminBytes;
        this.kmaxBytes = kmaxBytes;
        this.pmax = pmax;
        return this;
    }

    /** Headroom per lossless ingress queue, absorbing what is in flight after XOFF. */
    public PortConfig headroomBytes(long bytes) {
        this.headroomBytes = bytes;
        return this;
    }

    public long rateBps() {
        return rateBps;
    }

    public long headroomBytes() {
        return headroomBytes;
    }

    public long mac() {
        return mac;
    }

    public PortFormat format() {
        return format;
    }

    void validate(int port) {
        String p = "port " + port + ": ";
        if (rateBps <= 0) {
            throw new IllegalArgumentException(p + "rateBps must be > 0, was " + rateBps);
        }
        if (defaultPriority < 0 || defaultPriority > 7) {
            throw new IllegalArgumentException(p + "defaultPriority must be 0..7, was " + defaultPriority);
        }
        for (int d = 0; d < 64; d++) {
            if (dscpToPriority[d] < 0 || dscpToPriority[d] > 7) {
                throw new IllegalArgumentException(p + "DSCP " + d + " maps to priority " + dscpToPriority[d] + ", must be 0..7");
            }
        }
        for (int q = 0; q < 8; q++) {
            if (weights[q] < 1) {
                throw new IllegalArgumentException(p + "weight of priority " + q + " must be >= 1, was " + weights[q]);
            }
        }
        if ((pfcMask | strictMask | ecnMask) >>> 8 != 0) {
            throw new IllegalArgumentException(p + "priority masks must fit in 8 bits");
        }
        if (ecnMask != 0 && (kminBytes < 0 || kmaxBytes <= kminBytes || pmax < 0 || pmax > 1)) {
            throw new IllegalArgumentException(p + "ECN needs 0 <= kmin < kmax and 0 <= pmax <= 1, was kmin=" + kminBytes
                + " kmax=" + kmaxBytes + " pmax=" + pmax);
        }
        if (headroomBytes < 0) {
            throw new IllegalArgumentException(p + "headroomBytes must be >= 0, was " + headroomBytes);
        }
    }
}
