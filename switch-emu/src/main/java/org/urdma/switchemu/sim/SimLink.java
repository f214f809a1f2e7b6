package org.urdma.switchemu.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * A full-duplex point-to-point link: the sender serializes (at its port rate), the link adds the
 * propagation delay. Taps see every frame with its direction, for tests and captures.
 */
public final class SimLink {
    /** Observes frames entering the link. */
    @FunctionalInterface
    public interface Tap {
        void frame(SimNode from, byte[] frame, long txEndNs);
    }

    private final Simulator sim;
    private final SimNode a;
    private final int aPort;
    private final SimNode b;
    private final int bPort;
    private final long rateBps;
    private final long propagationNs;
    private final List<Tap> taps = new ArrayList<>();

    public SimLink(Simulator sim, SimNode a, int aPort, SimNode b, int bPort, long rateBps, long propagationNs) {
        if (rateBps <= 0 || propagationNs < 0) {
            throw new IllegalArgumentException("link rate must be > 0 and propagation >= 0");
        }
        this.sim = sim;
        this.a = a;
        this.aPort = aPort;
        this.b = b;
        this.bPort = bPort;
        this.rateBps = rateBps;
        this.propagationNs = propagationNs;
    }

    public long rateBps() {
        return rateBps;
    }

    public long propagationNs() {
        return propagationNs;
    }

    public void addTap(Tap tap) {
        taps.add(tap);
    }

    /** {@code from} finished sending {@code frame} at {@code releaseNs}; it arrives after the propagation delay. */
    public void carry(SimNode from, byte[] frame, long releaseNs) {
        for (Tap t : taps) {
            t.frame(from, frame, releaseNs);
        }
        SimNode to = from == a ? b : a;
        int port = from == a ? bPort : aPort;
        long at = releaseNs + propagationNs;
        sim.schedule(at, () -> to.receive(port, frame, at));
    }
}
