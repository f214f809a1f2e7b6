package org.urdma.tools.perf;

import java.util.concurrent.atomic.AtomicLong;
import org.urdma.transport.driver.DeviceAgent;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.Device;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QueuePair;

/**
 * One side of an in-memory run ({@link PerfSession}) on its own thread. With the inline driver the side's thread
 * runs its own device's engine (two threads, two engines, like two processes); with agent drivers it only polls.
 * The two sides meet at a spinning {@link Rendezvous} that keeps the engine running while it waits. With the
 * inline driver one thread plays both sides instead ({@code r == null}): it drives both engines, and the runner
 * interleaves the server's steps.
 */
final class MemoryPerfSide extends PerfSide {
    /** A two-party barrier; broken when either side fails, so the other stops instead of waiting. */
    static final class Rendezvous {
        final AtomicLong arrivals = new AtomicLong();
        volatile String broken;
    }

    /** This side's engine, when this thread drives it. */
    private final DeviceAgent engine;
    /** No rendezvous: this thread plays both sides and drives both engines (a passive server). */
    private final PerfSession solo;
    /** With {@link #solo}: the server's work that is not in its engine (the send-bw sink), run on every pass. */
    PerfPatterns.Sink peerSink;
    private final boolean inline;
    private final Rendezvous rendezvous;
    private long generation;

    MemoryPerfSide(PerfSession s, boolean server, int index, int maxSize, Rendezvous r) {
        super(server, server ? s.servers[index] : s.clients[index], server ? s.cqsB[index] : s.cqsA[index],
                server ? s.bufsB[index] : s.bufsA[index], maxSize, 60_000_000_000L);
        this.engine = new DeviceAgent(server ? s.fabric.b : s.fabric.a);
        this.inline = s.inline();
        this.rendezvous = r;
        this.solo = r == null ? s : null;
        MemoryRegion peer = server ? s.bufsA[index] : s.bufsB[index];
        this.remoteVa = peer.address();
        this.remoteRkey = peer.rkey();
        QueuePair other = server ? s.clients[index] : s.servers[index];
        this.remoteQpn = other.qpNum();
        if (ud()) {
            Device peerDevice = server ? s.fabric.a : s.fabric.b;
            ProtectionDomain pd = server ? s.pdB : s.pdA;
            if (!server && s.mcastGroup != null) { // -g: to the group the server's QP is attached to
                this.ah = pd.createAh(new AddressHandleAttributes().dgid(s.mcastGroup)
                        .dmac(org.urdma.transport.mcast.MulticastMac.bytes(s.mcastGroup, "-M")));
                this.remoteQpn = PerfMulticast.QPN;
            } else {
                this.ah = pd.createAh(new AddressHandleAttributes().dgid(peerDevice.gid(0)).dmac(peerDevice.mac()));
            }
        }
    }

    /** One side's QPs (-q): they share the thread, the device and the rendezvous (met through the first). */
    static MemoryPerfSide[] sides(PerfSession s, boolean server, int maxSize, Rendezvous r) {
        MemoryPerfSide[] sides = new MemoryPerfSide[s.clients.length];
        for (int i = 0; i < sides.length; i++) sides[i] = new MemoryPerfSide(s, server, i, maxSize, r);
        return sides;
    }

    @Override
    void progress() {
        if (solo != null) {
            solo.progress();
            if (peerSink != null) peerSink.step();
        } else if (inline) {
            engine.doWork();
        }
    }

    @Override
    void sync(String step) {
        if (solo != null) return;
        long target = 2 * ++generation;
        rendezvous.arrivals.incrementAndGet();
        while (rendezvous.arrivals.get() < target) { // no time limit: a failing peer breaks the rendezvous
            if (rendezvous.broken != null) throw new NetPerf.CompletionError("the peer failed at " + step + ": " + rendezvous.broken);
            progress();
            Thread.onSpinWait();
        }
    }

    @Override
    void stalled(long since, String what, long n) {
        if (rendezvous != null && rendezvous.broken != null) {
            throw new NetPerf.CompletionError("the peer failed: " + rendezvous.broken);
        }
        super.stalled(since, what, n);
    }

    void breakRendezvous(String why) {
        if (rendezvous != null) rendezvous.broken = why;
    }

}
