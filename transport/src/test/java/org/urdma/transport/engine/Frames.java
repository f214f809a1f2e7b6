package org.urdma.transport.engine;

import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Packet;

/** Hand-made frames (RoCEv2 unless told) between the devices of a {@link MemoryFabric}, as a foreign host would send them. */
final class Frames {
    private final Framing framing;
    private final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(16384));
    private final MemoryFabric fabric;

    Frames(MemoryFabric fabric) {
        this(fabric, FramingKind.ROCE2);
    }

    /** Frames of {@code kind}, which must be the fabric's framing. */
    Frames(MemoryFabric fabric, FramingKind kind) {
        this.fabric = fabric;
        this.framing = Framings.of(kind);
    }

    /** A packet from a to b that says everything about its sender as the in-memory link's framing of a does. */
    Packet packetWithGids() {
        Packet p = packet();
        byte[] s = fabric.a.gid(0).toBytes();
        byte[] d = fabric.b.gid(0).toBytes();
        p.sgidHi = java.nio.ByteBuffer.wrap(s).getLong(0);
        p.sgidLo = java.nio.ByteBuffer.wrap(s).getLong(8);
        p.dgidHi = java.nio.ByteBuffer.wrap(d).getLong(0);
        p.dgidLo = java.nio.ByteBuffer.wrap(d).getLong(8);
        p.srcXpu = (int) (p.srcMac & 0xFFFF);
        p.hopLimit = 64;
        p.ttl = 64;
        p.pkey = 0xFFFF;
        return p;
    }

    /** A packet addressed from a to b (Ethernet and IPv4 as the in-memory link's framing does); set the rest. */
    Packet packet() {
        Packet p = new Packet();
        p.srcMac = mac(fabric.a.mac());
        p.dstMac = mac(fabric.b.mac());
        p.ipSrc = 0x0A000000 | (fabric.a.mac()[5] & 0xFF);
        p.ipDst = 0x0A000000 | (fabric.b.mac()[5] & 0xFF);
        return p;
    }

    /** A packet addressed from b to a (responses to a's requests); send it with {@link #sendToA}. */
    Packet packetToA() {
        Packet p = new Packet();
        p.srcMac = mac(fabric.b.mac());
        p.dstMac = mac(fabric.a.mac());
        p.ipSrc = 0x0A000000 | (fabric.b.mac()[5] & 0xFF);
        p.ipDst = 0x0A000000 | (fabric.a.mac()[5] & 0xFF);
        return p;
    }

    /** Encodes {@code p} and sends it on b's link end, towards a; false when the ring is full. */
    boolean sendToA(Packet p, long now) {
        int len = framing.encode(p, frame, 0);
        return fabric.linkB.inject(frame, 0, len, now);
    }

    /**
     * Encodes {@code p} and sends it on a's link end; false when the ring is full. Throws IllegalArgumentException for
     * field combinations no frame can carry.
     */
    boolean send(Packet p, long now) {
        p.dstQpid = p.destQp & 0xFFFF;
        int len = framing.encode(p, frame, 0);
        return fabric.linkA.inject(frame, 0, len, now);
    }

    private static long mac(byte[] m) {
        long v = 0;
        for (byte b : m) v = (v << 8) | (b & 0xFF);
        return v;
    }
}
