package org.urdma.transport.engine;

import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;

/** A link that carries nothing: for tests of a device's local objects (CQs, GIDs), where no frame may move. */
final class SilentLink implements Link {
    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        return null;
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
    }

    @Override
    public int receive(long now, PacketSink sink, int limit) {
        return 0;
    }

    @Override
    public int maxPayload() {
        return 1024;
    }
}
