package org.urdma.tools.ecn;

import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.RealTimeDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.ethernet.AfPacketLink;
import org.urdma.transport.link.ethernet.EthernetLinkConfig;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * One urdma device on an AF_PACKET port opened inside its host's namespace (RoCEv2, ECT(0)), driven by its own agent
 * thread, with one RC QP and one memory region open to remote writes.
 */
final class NamespaceHost implements AutoCloseable {
    static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;

    final AfPacketLink link;
    final SoftDevice device;
    final RealTimeDriver driver;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final Arena arena = Arena.ofShared();
    final MemoryRegion mr;
    final int psn;
    /** The local ACK timeout's code (4.096 us x 2^code), the connection default unless set. */
    private int ackTimeout = MemoryFabric.Connection.defaults().timeout();

    NamespaceHost(String name, String ns, long mac, String ip, int size, long seed, RateControl.Factory rate)
            throws Exception {
        byte[] m = PortIdentity.parseMac(String.format("%02x:%02x:%02x:%02x:%02x:%02x", mac >>> 40 & 0xFF,
                mac >>> 32 & 0xFF, mac >>> 24 & 0xFF, mac >>> 16 & 0xFF, mac >>> 8 & 0xFF, mac & 0xFF));
        EthernetLinkConfig c = EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(m, ip)); // ECT(0) by default
        link = Netns.call(ns, () -> AfPacketLink.open(NetworkBuilder.HOST_INTERFACE, c, AfPacketOptions.Version.V2));
        DeviceConfig dc = new DeviceConfig(name, m, 64, 4096, 16, 8192, 1024, 16, 256, 128, 64, LossRecovery.goBackN(),
                rate);
        SplittableRandom r = new SplittableRandom(seed);
        device = new SoftDevice(dc, link, r.split(), System.nanoTime());
        driver = new RealTimeDriver(device, RealTimeDriver.Idle.BACKOFF);
        pd = device.allocPd();
        cq = device.createCq(4096, null);
        qp = pd.createQp(MemoryFabric.init(QpType.RC, cq, 1024));
        mr = pd.registerMemory(arena.allocate(size, 4096), RW);
        psn = r.nextInt(1 << 24);
    }

    /** Sets the local ACK timeout (4.096 us x 2^code) of the QPs this host connects from now on. */
    NamespaceHost ackTimeout(int code) {
        ackTimeout = code;
        return this;
    }

    /** Another RC QP on this device (for a second peer). */
    QueuePair addQp() {
        return pd.createQp(MemoryFabric.init(QpType.RC, cq, 1024));
    }

    QpEndpoint endpoint() {
        return endpoint(qp);
    }

    QpEndpoint endpoint(QueuePair q) {
        return new QpEndpoint(0, q.qpNum(), psn, link.datapath().gids().gidFor(FramingKind.ROCE2),
                link.datapath().config().port().mac(), PathMtu.MTU_1024, mr.rkey(), mr.address(), mr.length(), 16,
                QpEndpoint.Features.ALL);
    }

    void connect(QpEndpoint peer) {
        connect(qp, peer);
    }

    void connect(QueuePair q, QpEndpoint peer) {
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withAccess(RW).withTimeout(ackTimeout);
        byte[] mac = NeighborResolver.resolve(device, link.datapath(), peer.gid(), 2_000_000_000L);
        QpConnector.toInit(q, c, 0x11111111);
        QpConnector.toRts(q, endpoint(q), peer, mac, c);
    }

    @Override
    public void close() {
        driver.close();
        link.close();
        arena.close();
    }
}
