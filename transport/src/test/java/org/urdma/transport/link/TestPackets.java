package org.urdma.transport.link;

import org.agrona.DirectBuffer;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;

/** Sends hand-made packets through a link's in-place API, the way the engine builds them (tests). */
public final class TestPackets {
    private TestPackets() {}

    /** An opcode without extended headers (e.g. RC SEND_ONLY), or ACKNOWLEDGE with an ACK syndrome; false on back-pressure. */
    public static boolean send(Link link, Route route, int opcode, int destQp, int psn, DirectBuffer payload, int length, long now) {
        TxPacket t = link.claim(opcode, length, route, now);
        if (t == null) return false;
        t.start(opcode, destQp, psn, false, false);
        if (opcode == 0x11) t.aeth(0x1F, 0);
        if (length > 0) t.payload(payload, 0, length);
        link.commit(t, route, now);
        return true;
    }

    /** The route to a peer of an in-memory link, whose GID derives from its MAC. */
    public static Route routeTo(byte[] mac) {
        return new Route().set(mac, org.urdma.verbs.Gid.fromMac(mac).toBytes());
    }
}
