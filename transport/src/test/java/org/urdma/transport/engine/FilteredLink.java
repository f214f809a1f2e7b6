package org.urdma.transport.engine;

import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.DecodeStatus;

/** A memory link's end that hands the engine only the arrivals {@link #accept} lets through (a loss decided by a test). */
abstract class FilteredLink implements Link {
    final MemoryLink inner;
    private PacketSink sink;
    private final PacketSink filter = new PacketSink() {
        @Override
        public void onPacket(RxPacket p, long now) {
            if (accept(p, now)) sink.onPacket(p, now);
        }

        @Override
        public void onMalformed(DecodeStatus why, long now) {
            sink.onMalformed(why, now);
        }
    };

    FilteredLink(MemoryLink inner) {
        this.inner = inner;
    }

    /** Whether the engine gets {@code p}; false drops it. */
    abstract boolean accept(RxPacket p, long now);

    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        return inner.claim(opcode, payloadLength, route, now);
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
        inner.commit(packet, route, now);
    }

    @Override
    public int receive(long now, PacketSink s, int limit) {
        sink = s;
        return inner.receive(now, filter, limit);
    }

    @Override
    public int flush(long now) {
        return inner.flush(now);
    }

    @Override
    public long nextEventTime() {
        return inner.nextEventTime();
    }

    @Override
    public int maxPayload() {
        return inner.maxPayload();
    }
}
