package org.urdma.switchemu.rt;

import org.urdma.nativeio.AfPacketOptions;

import java.nio.file.Path;

/** How the real-time driver runs its ports (fluent, checked setters). */
public final class RtOptions {
    /**
     * How the driver thread waits when there is nothing to do: SPIN never sleeps; BACKOFF spins, yields,
     * then parks up to 50 us; WAIT (default) spins briefly after work and near a deadline, else sleeps in
     * ppoll on the ports until a frame arrives or the spin window before the next deadline.
     */
    public enum Idle { SPIN, BACKOFF, WAIT }

    AfPacketOptions.Version rxVersion = AfPacketOptions.Version.V2;
    int rxRingBytes = 8 << 20;
    int txSlots = 1024;
    int txBatch = 32;
    long delayLineBytes = 32L << 20;
    Path pcapDir;
    boolean impair = true;
    long seed = 1;
    long spinWindowNs = 50_000;
    Idle idle = Idle.WAIT;
    int nice;

    public static RtOptions defaults() {
        return new RtOptions();
    }

    /** RX ring format: V2 hands over every frame at once (latency), V3 whole blocks (throughput, ~1 ms retire). */
    public RtOptions rxVersion(AfPacketOptions.Version v) {
        this.rxVersion = java.util.Objects.requireNonNull(v, "rxVersion");
        return this;
    }

    /** RX ring size per port; frames waiting here are not yet seen by the switch's MMU. */
    public RtOptions rxRingBytes(int bytes) {
        if (bytes < (1 << 17)) {
            throw new IllegalArgumentException("rxRingBytes must be >= 131072, was " + bytes);
        }
        this.rxRingBytes = bytes;
        return this;
    }

    public RtOptions txSlots(int slots) {
        if (slots < 16) {
            throw new IllegalArgumentException("txSlots must be >= 16, was " + slots);
        }
        this.txSlots = slots;
        return this;
    }

    /** Frames committed to a TX ring before the driver flushes mid-iteration (it always flushes at the end). */
    public RtOptions txBatch(int frames) {
        if (frames < 1) {
            throw new IllegalArgumentException("txBatch must be >= 1, was " + frames);
        }
        this.txBatch = frames;
        return this;
    }

    /** Storage for frames held by impairment delay, per impaired port direction. */
    public RtOptions delayLineBytes(long bytes) {
        if (bytes < (1 << 16)) {
            throw new IllegalArgumentException("delayLineBytes must be >= 65536, was " + bytes);
        }
        this.delayLineBytes = bytes;
        return this;
    }

    /** Write one pcap per port (frames received and sent) into this directory; null = none. */
    public RtOptions pcapDir(Path dir) {
        this.pcapDir = dir;
        return this;
    }

    /** Apply the topology's impairment in the switch (false when {@code tc netem} does it instead). */
    public RtOptions impair(boolean on) {
        this.impair = on;
        return this;
    }

    /** Seed of the impairment and ECN random generators (a run's decisions follow from it). */
    public RtOptions seed(long seed) {
        this.seed = seed;
        return this;
    }

    /**
     * Keep spinning (never park) while the next deadline is this close; with WAIT the thread sleeps until
     * this long before a deadline, so it is the allowance for a timed wake-up to come late.
     */
    public RtOptions spinWindowNs(long ns) {
        if (ns < 0) {
            throw new IllegalArgumentException("spinWindowNs must be >= 0, was " + ns);
        }
        this.spinWindowNs = ns;
        return this;
    }

    public RtOptions idle(Idle idle) {
        this.idle = java.util.Objects.requireNonNull(idle, "idle");
        return this;
    }

    /**
     * Nice value of the driver thread (-20..19; below 0 needs root): a switch sharing a few cores with
     * its hosts keeps pace (and releases delayed frames on time) when the scheduler prefers it.
     */
    public RtOptions nice(int nice) {
        if (nice < -20 || nice > 19) {
            throw new IllegalArgumentException("nice must be in [-20, 19], was " + nice);
        }
        this.nice = nice;
        return this;
    }

    public int nice() {
        return nice;
    }

    public Path pcapDir() {
        return pcapDir;
    }

    public boolean impair() {
        return impair;
    }

    public Idle idle() {
        return idle;
    }
}
