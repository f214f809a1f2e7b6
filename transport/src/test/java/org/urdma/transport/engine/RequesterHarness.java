package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.QueuePair;

/**
 * A's requester and completer driven by hand-made responses on a {@link Rig}'s virtual clock: B's QP is destroyed
 * once connected, so only what the test sends answers A, and every frame A sends is captured, decoded.
 */
final class RequesterHarness implements AutoCloseable {
    final Rig rig = new Rig();
    final QueuePair a;
    final SoftQp qa;
    final int bQpn;
    final Frames frames;
    final int uethFlags;
    /** What A sent, in order. */
    final List<Packet> sent = new ArrayList<>();
    private final Framing framing = Framings.of(FramingKind.ROCE2);

    RequesterHarness(int uethFlags) {
        this.uethFlags = uethFlags;
        QueuePair[] qp = uethFlags == 0 ? rig.rc() : rig.wan(uethFlags, MemoryFabric.Connection.defaults(), 512);
        a = qp[0];
        qa = (SoftQp) a;
        bQpn = qp[1].qpNum();
        qp[1].close(); // A's requests now reach no QP: the test answers them
        frames = new Frames(rig.fabric);
        rig.fabric.linkA.tap((f, off, len, now) -> {
            Packet p = new Packet();
            assertEquals(DecodeStatus.OK, framing.decode(f, off, len, p), "A sent an undecodable frame");
            p.payloadBuffer = null; // the frame's slot is reused
            sent.add(p);
        });
    }

    /** A response of {@code opcode} (a full RC opcode) for A at {@code psn}, with an ACK syndrome. */
    Packet response(int opcode, int psn) {
        Packet p = frames.packetToA();
        p.opcode = opcode;
        p.destQp = a.qpNum();
        p.psn = psn;
        p.aethSyndrome = org.urdma.transport.wire.Aeth.SYNDROME_ACK | org.urdma.transport.wire.Aeth.CREDITS_INVALID;
        if (uethFlags != 0) p.urdma(uethFlags);
        return p;
    }

    /** Sends {@code p} to A and lets {@code nanos} of virtual time pass. */
    void deliver(Packet p, long nanos) {
        assertTrue(frames.sendToA(p, rig.sim.now()), "B's link end took the frame");
        rig.run(nanos);
    }

    void deliver(Packet p) {
        deliver(p, ResponderHarness.MS / 10);
    }

    List<Packet> sentOf(int opcode) {
        List<Packet> out = new ArrayList<>();
        for (Packet p : sent) if (p.opcode == opcode) out.add(p);
        return out;
    }

    static UnsafeBuffer bytes(int length, int fill) {
        return ResponderHarness.bytes(length, fill);
    }

    @Override
    public void close() {
        rig.close();
    }
}
