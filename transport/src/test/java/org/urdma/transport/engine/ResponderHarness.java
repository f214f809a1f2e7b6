package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;

/**
 * Hand-made requests from A's address to B's QP on a {@link Rig}'s virtual clock, and every frame B sends, decoded:
 * drives one responder packet by packet, as a peer that sends exactly what the test says would.
 */
final class ResponderHarness implements AutoCloseable {
    static final long MS = 1_000_000L;
    final Rig rig = new Rig();
    final QueuePair a, b;
    final SoftQp qb;
    final Frames frames;
    final int uethFlags;
    /** What B sent, in order. */
    final List<Packet> sent = new ArrayList<>();
    private final Framing framing = Framings.of(FramingKind.ROCE2);

    private ResponderHarness(QpType type, int uethFlags) {
        this.uethFlags = uethFlags;
        QueuePair[] qp = uethFlags == 0 ? rig.connect(type, MemoryFabric.Connection.defaults())
                : rig.wan(uethFlags, MemoryFabric.Connection.defaults(), 512);
        a = qp[0];
        b = qp[1];
        qb = (SoftQp) b;
        frames = new Frames(rig.fabric);
        rig.fabric.linkB.tap((f, off, len, now) -> {
            Packet p = new Packet();
            assertEquals(DecodeStatus.OK, framing.decode(f, off, len, p), "B sent an undecodable frame");
            p.payloadBuffer = null; // the frame's slot is reused
            sent.add(p);
        });
    }

    static ResponderHarness of(QpType type) {
        return new ResponderHarness(type, 0);
    }

    /** An RC pair in WAN mode with {@code uethFlags} on both sides. */
    static ResponderHarness wan(int uethFlags) {
        return new ResponderHarness(QpType.RC, uethFlags);
    }

    /** B's expected PSN plus {@code d}. */
    int psn(int d) {
        return (qb.responder.ePsn + d) & 0xFFFFFF;
    }

    /** A request of {@code opcode} (the 5-bit operation; the transport is B's) for B at {@code psn}. */
    Packet request(int opcode, int psn) {
        Packet p = frames.packetWithGids();
        int transport = qb.type == QpType.RC ? Opcode.TRANSPORT_RC : qb.type == QpType.UC ? Opcode.TRANSPORT_UC : Opcode.TRANSPORT_UD;
        p.opcode = transport | opcode;
        p.destQp = b.qpNum();
        p.psn = psn;
        if (uethFlags != 0) p.urdma(uethFlags);
        return p;
    }

    /** A WRITE packet carrying {@code payload}: its RETH names {@code mr} at {@code offset}, for a message of {@code total}. */
    Packet write(int opcode, int psn, MemoryRegion mr, long offset, int total, UnsafeBuffer payload) {
        Packet p = request(opcode, psn);
        p.rethVa = mr.address() + offset;
        p.rethRkey = mr.rkey();
        p.rethDmaLength = total;
        p.payload(payload, 0, payload.capacity());
        return p;
    }

    /** Sends {@code p} to B and lets {@code nanos} of virtual time pass. */
    void deliver(Packet p, long nanos) {
        assertTrue(frames.send(p, rig.sim.now()), "A's link end took the frame");
        rig.run(nanos);
    }

    void deliver(Packet p) {
        deliver(p, MS);
    }

    void postRecv(long wrId, MemoryRegion mr, long offset, int length) {
        b.postRecv(new ReceiveWorkRequest().wrId(wrId).addSge(mr, offset, length));
    }

    /** The ACKNOWLEDGE packets B sent whose AETH syndrome is of {@code type} (Aeth.SYNDROME_ACK, _NAK, _RNR_NAK). */
    List<Packet> acks(int type) {
        List<Packet> out = new ArrayList<>();
        for (Packet p : sent) {
            if (p.opcode == Opcode.RC_ACKNOWLEDGE && (p.aethSyndrome & Aeth.SYNDROME_TYPE) == type) out.add(p);
        }
        return out;
    }

    List<Packet> sentOf(int opcode) {
        List<Packet> out = new ArrayList<>();
        for (Packet p : sent) if (p.opcode == opcode) out.add(p);
        return out;
    }

    static UnsafeBuffer bytes(int length, int fill) {
        UnsafeBuffer u = new UnsafeBuffer(new byte[length]);
        u.setMemory(0, length, (byte) fill);
        return u;
    }

    @Override
    public void close() {
        rig.close();
    }
}
