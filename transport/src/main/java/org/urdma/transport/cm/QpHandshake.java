package org.urdma.transport.cm;

import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QueuePair;

/**
 * The whole connect sequence of one side, like perftest: QP to INIT, exchange endpoints over the channel,
 * resolve the peer's MAC the way a NIC would (ARP for RoCEv2, the GID for RoCEv1; the exchanged MAC on an
 * in-memory link), RTR and RTS, then a barrier so neither side sends before the other is ready.
 */
public final class QpHandshake {
    private QpHandshake() {
    }

    /**
     * @param port the device's Ethernet port, or null on an in-memory link (the exchanged MAC is used)
     * @return the peer's endpoint (with its R_Key/VA if it advertised a region)
     */
    public static QpEndpoint connect(ExchangeChannel channel, ExchangeFormat format, SoftDevice device, EthernetDatapath port,
                                     QueuePair qp, QpEndpoint local, MemoryFabric.Connection c, int qkey, long resolveTimeoutNanos) {
        if (qp.state() == QpState.RESET) QpConnector.toInit(qp, c, qkey);
        QpEndpoint remote = format.exchange(channel, local);
        byte[] mac;
        if (port != null) {
            mac = NeighborResolver.resolve(device, port, remote.gid(), resolveTimeoutNanos);
        } else if (remote.mac() != null) {
            mac = remote.mac();
        } else {
            throw new ConnectionException("exchange: peer " + channel.peer() + " sent no MAC and this link cannot resolve one");
        }
        QpConnector.toRts(qp, local, remote, mac, c);
        format.barrier(channel, local, "barrier after RTS");
        return remote;
    }
}
