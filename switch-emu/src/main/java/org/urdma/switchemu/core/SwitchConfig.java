package org.urdma.switchemu.core;

import java.util.ArrayList;
import java.util.List;

/** Switch-wide configuration (fluent; checked when a {@link SwitchCore} is built from it). */
public final class SwitchConfig {
    final List<PortConfig> ports = new ArrayList<>();
    long bufferBytes = 4 * 1024 * 1024;
    int cellBytes = 128;
    int maxFrameBytes = 9216;
    long reserveBytes = 1_500;
    // a real switch's profile: α = 1/8 (HPCC's switch-mmu; SONiC Broadcom profiles with xon_offset 2496 B)
    double dtAlpha = 0.125;
    long resumeOffsetBytes = 2_496;
    int pauseQuanta = 0xFFFF;
    long macAgingNs = 300_000_000_000L;
    int macTableSize = 4096;
    ForwardingMode forwarding = ForwardingMode.STORE_AND_FORWARD;
    long pipelineDelayNs = 300;
    int cutThroughBytes = 64;
    int wireOverheadBytes = 24;
    boolean watchdog;
    long watchdogDetectionNs = 200_000_000L;
    long watchdogRestorationNs = 200_000_000L;
    WatchdogAction watchdogAction = WatchdogAction.DROP;
    int crossbarIterations;
    long crossbarSlotNs;
    int crossbarEgressBytes;
    RouteTable routes;
    boolean packetMemoryOnDemand;
    long ecmpSeed;
    boolean spray;

    public SwitchConfig port(PortConfig port) {
        ports.add(port);
        return this;
    }

    public List<PortConfig> ports() {
        return ports;
    }

    /** Shared buffer (the MMU's B): reserves, headroom and the shared pool come out of it. */
    public SwitchConfig bufferBytes(long bytes) {
        this.bufferBytes = bytes;
        return this;
    }

    /** Storage granularity of the packet memory. */
    public SwitchConfig cellBytes(int bytes) {
        this.cellBytes = bytes;
        return this;
    }

    public SwitchConfig maxFrameBytes(int bytes) {
        this.maxFrameBytes = bytes;
        return this;
    }

    /** Guaranteed bytes per ingress (port, priority) before the shared pool is used. */
    public SwitchConfig reserveBytes(long bytes) {
        this.reserveBytes = bytes;
        return this;
    }

    /** Dynamic Threshold α: a queue may use α × (free shared buffer). Default 1/8. */
    public SwitchConfig dtAlpha(double alpha) {
        this.dtAlpha = alpha;
        return this;
    }

    /** XON once shared use + this offset is at or below the threshold (hysteresis). Default 2496 B. */
    public SwitchConfig resumeOffsetBytes(long bytes) {
        this.resumeOffsetBytes = bytes;
        return this;
    }

    /** Pause time put in XOFF frames; XOFF is refreshed every half of it while still congested. */
    public SwitchConfig pauseQuanta(int quanta) {
        this.pauseQuanta = quanta;
        return this;
    }

    public SwitchConfig macAgingNs(long ns) {
        this.macAgingNs = ns;
        return this;
    }

    public SwitchConfig macTableSize(int entries) {
        this.macTableSize = entries;
        return this;
    }

    public SwitchConfig forwarding(ForwardingMode mode) {
        this.forwarding = mode;
        return this;
    }

    public SwitchConfig pipelineDelayNs(long ns) {
        this.pipelineDelayNs = ns;
        return this;
    }

    public long pipelineDelayNs() {
        return pipelineDelayNs;
    }

    public ForwardingMode forwarding() {
        return forwarding;
    }

    /** Frame bytes (after the 8 B preamble+SFD) a cut-through switch waits for before it may start transmitting. */
    public SwitchConfig cutThroughBytes(int bytes) {
        this.cutThroughBytes = bytes;
        return this;
    }

    /** Bytes on the wire besides the frame: preamble+SFD 8, FCS 4, inter-frame gap 12 = 24. */
    public SwitchConfig wireOverheadBytes(int bytes) {
        this.wireOverheadBytes = bytes;
        return this;
    }

    /** PFC watchdog (SONiC semantics) on every lossless queue. */
    public SwitchConfig watchdog(long detectionNs, long restorationNs, WatchdogAction action) {
        this.watchdog = true;
        this.watchdogDetectionNs = detectionNs;
        this.watchdogRestorationNs = restorationNs;
        this.watchdogAction = action;
        return this;
    }

    /**
     * VOQ + iSLIP crossbar: frames wait in virtual output queues (input, output, priority); every
     * {@code slotNs} (0 = exactly one 1518-byte frame's wire time at the fastest port) each matched input→output
     * pair moves up to a slot's worth of wire bytes at the fastest port rate (speedup 1; a longer frame holds the
     * pair for the slots it needs), matched by {@code iterations} rounds of iSLIP (priority-aware: the highest
     * priority request wins, round-robin among equals). An output queue accepts a crossing frame while
     * it holds less than {@code egressBytes} (0 = two largest frames) for that priority.
     */
    public SwitchConfig crossbar(int iterations, long slotNs, int egressBytes) {
        this.crossbarIterations = iterations;
        this.crossbarSlotNs = slotNs;
        this.crossbarEgressBytes = egressBytes;
        return this;
    }

    /**
     * Routed forwarding: frames go where {@code table} routes their destination (no learning, no flooding; a
     * destination without a route or a group address is dropped as {@link DropReason#NO_ROUTE}); among a route's
     * equal-cost ports the flow hash under {@code seed} chooses, or with {@code spray} each packet at random.
     */
    public SwitchConfig routes(RouteTable table, long seed, boolean spray) {
        this.routes = table;
        this.ecmpSeed = seed;
        this.spray = spray;
        return this;
    }

    /**
     * Packet memory made as queues need it (doubling up to the buffer) instead of all at construction: for simulated
     * switches, which may be many and mostly idle; a real-time switch keeps it off so it never allocates once running.
     */
    public SwitchConfig packetMemoryOnDemand(boolean on) {
        this.packetMemoryOnDemand = on;
        return this;
    }

    /** The route table of a routed switch, or null (L2 learning). */
    public RouteTable routes() {
        return routes;
    }

    /** Throws IllegalArgumentException naming the field and the rule if the configuration cannot work. */
    public void validate() {
        if (ports.isEmpty() || ports.size() > 255) {
            throw new IllegalArgumentException("ports: a switch needs 1..255 ports, has " + ports.size());
        }
        for (int i = 0; i < ports.size(); i++) {
            ports.get(i).validate(i);
        }
        if (cellBytes < 64) {
            throw new IllegalArgumentException("cellBytes must be >= 64, was " + cellBytes);
        }
        if (maxFrameBytes < 60) {
            throw new IllegalArgumentException("maxFrameBytes must be >= 60, was " + maxFrameBytes);
        }
        long fixed = reserveBytes * 8 * ports.size();
        for (PortConfig p : ports) {
            fixed += p.pfcMask == 0 ? 0 : p.headroomBytes * Integer.bitCount(p.pfcMask);
        }
        if (bufferBytes <= fixed || bufferBytes / cellBytes > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException("bufferBytes (" + bufferBytes + ") must exceed reserves + headroom ("
                + fixed + ") and stay below 2^29 cells");
        }
        if (reserveBytes < 0 || resumeOffsetBytes < 0) {
            throw new IllegalArgumentException("reserveBytes and resumeOffsetBytes must be >= 0");
        }
        if (!(dtAlpha > 0)) {
            throw new IllegalArgumentException("dtAlpha must be > 0, was " + dtAlpha);
        }
        if (pauseQuanta < 1 || pauseQuanta > 0xFFFF) {
            throw new IllegalArgumentException("pauseQuanta must be 1..65535, was " + pauseQuanta);
        }
        if (macAgingNs <= 0 || macTableSize < 1) {
            throw new IllegalArgumentException("macAgingNs and macTableSize must be > 0");
        }
        if (pipelineDelayNs < 0 || cutThroughBytes < 14 || wireOverheadBytes < 0) {
            throw new IllegalArgumentException("pipelineDelayNs >= 0, cutThroughBytes >= 14, wireOverheadBytes >= 0 required");
        }
        if (crossbarIterations < 0 || crossbarIterations > 16 || crossbarSlotNs < 0 || crossbarEgressBytes < 0) {
            throw new IllegalArgumentException("crossbar: iterations must be 0..16 (0 = output-queued), slot and egress bytes >= 0");
        }
        if (watchdog && (watchdogDetectionNs <= 0 || watchdogRestorationNs <= 0)) {
            throw new IllegalArgumentException("watchdog detection and restoration times must be > 0");
        }
    }
}
