package org.urdma.switchemu.sim;

/** A stream of frames a {@link SimHost} sends: to whom, at which priority, how many, how fast. */
public final class Flow {
    final int id;
    final long destination;
    final int priority;
    final boolean tagged;
    final int frameBytes;
    final int count;
    boolean ipv4;
    int dscp;
    int ecn;
    long startNs;
    long gapNs;
    int sent;
    long nextNs;

    /** {@code count} frames of {@code frameBytes} to {@code destination}, VLAN-tagged with PCP = priority. */
    public Flow(int id, long destination, int priority, int frameBytes, int count) {
        this(id, destination, priority, true, frameBytes, count);
    }

    public Flow(int id, long destination, int priority, boolean tagged, int frameBytes, int count) {
        this.id = id;
        this.destination = destination;
        this.priority = priority;
        this.tagged = tagged;
        this.frameBytes = frameBytes;
        this.count = count;
    }

    /** Send IPv4/UDP with this DSCP and ECN codepoint instead of a bare EtherType frame. */
    public Flow ipv4(int dscp, int ecn) {
        this.ipv4 = true;
        this.dscp = dscp;
        this.ecn = ecn;
        return this;
    }

    public Flow start(long ns) {
        this.startNs = ns;
        this.nextNs = ns;
        return this;
    }

    /** Minimum time between frame starts (0 = back to back at line rate). */
    public Flow gap(long ns) {
        this.gapNs = ns;
        return this;
    }

    public int sent() {
        return sent;
    }

    public boolean done() {
        return sent >= count;
    }

    public int frameBytes() {
        return frameBytes;
    }

    public int priority() {
        return priority;
    }

    public int id() {
        return id;
    }
}
