package org.urdma.transport.link.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.RealTimeDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.packet.Link;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.WorkCompletion;

/** One device on a real link, run by a real-time driver, with a PD, CQ, one QP and one registered region (tests). */
final class Port implements AutoCloseable {
    static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    final Link link;
    final EthernetDatapath datapath;
    final SoftDevice device;
    final RealTimeDriver driver;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final Arena arena = Arena.ofShared();
    final MemoryRegion mr;
    final int psn;

    Port(String name, Link link, EthernetDatapath datapath, QpType type, long regionSize, long seed) {
        this.link = link;
        this.datapath = datapath;
        DeviceConfig c = new DeviceConfig(name, datapath.config().port().mac(), 64, 4096, 16, 8192, 1024, 16, 256, 512, 64,
                LossRecovery.goBackN());
        SplittableRandom r = new SplittableRandom(seed);
        this.device = new SoftDevice(c, link, r.split(), System.nanoTime());
        this.driver = new RealTimeDriver(device, RealTimeDriver.Idle.BACKOFF);
        this.pd = device.allocPd();
        this.cq = device.createCq(4096, null);
        this.qp = pd.createQp(MemoryFabric.init(type, cq, 1024));
        this.mr = pd.registerMemory(arena.allocate(regionSize, 4096), RW);
        this.psn = r.nextInt(1 << 24);
    }

    QpEndpoint endpoint() {
        return new QpEndpoint(0, qp.qpNum(), psn, datapath.gids().gidFor(datapath.config().framing()), datapath.config().port().mac(),
                PathMtu.ofBytes(link.maxPayload()), mr.rkey(), mr.address(), mr.length(), 16, QpEndpoint.Features.ALL);
    }

    /** Brings this side's QP to RTS towards {@code peer}, resolving the peer's MAC as a CM would (ARP for RoCEv2). */
    void connect(QpEndpoint peer, MemoryFabric.Connection c) {
        byte[] mac = NeighborResolver.resolve(device, datapath, peer.gid(), 2_000_000_000L);
        QpConnector.toInit(qp, c, 0x11111111);
        QpConnector.toRts(qp, endpoint(), peer, mac, c);
    }

    /** Next completion, or an AssertionError after {@code timeoutMs}. */
    WorkCompletion await(long timeoutMs) {
        WorkCompletion[] one = {new WorkCompletion()};
        long end = System.nanoTime() + timeoutMs * 1_000_000;
        while (System.nanoTime() - end < 0) {
            if (cq.poll(one) == 1) return one[0];
            Thread.onSpinWait();
        }
        throw new AssertionError(device.name() + ": no completion within " + timeoutMs + " ms; link " + datapath.counters());
    }

    MemorySegment memory() {
        return mr.segment();
    }

    @Override
    public void close() {
        driver.close();
        if (link instanceof AutoCloseable a) {
            try {
                a.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        arena.close();
    }
}
