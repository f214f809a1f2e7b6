package org.urdma.switchemu.rt;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.UnaryOperator;
import org.agrona.concurrent.IdleStrategy;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
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
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** A urdma device on eth0 of a host namespace (AF_PACKET link opened inside it), on its own engine thread. */
final class UrdmaHost implements AutoCloseable {
    static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    final byte[] mac;
    final AfPacketLink link;
    final SoftDevice device;
    final RealTimeDriver driver;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final Arena arena = Arena.ofShared();
    final MemoryRegion mr;

    /** RoCEv1, the link's default rings, a backoff engine thread. */
    UrdmaHost(String name, String ns, long mac48, String ip, UnaryOperator<EthernetLinkConfig> tweak, long regionSize, int window,
              RateControl.Factory rate) throws Exception {
        this(name, ns, mac48, ip, FramingKind.ROCE1, tweak, regionSize, null, window, rate, null);
    }

    /**
     * @param options null: the link's default rings
     * @param window  packets in flight per QP
     * @param rate    rate control per QP
     * @param idle    the engine thread's idle strategy, null: backoff
     */
    UrdmaHost(String name, String ns, long mac48, String ip, FramingKind kind, UnaryOperator<EthernetLinkConfig> tweak, long regionSize,
              AfPacketOptions options, int window, RateControl.Factory rate, IdleStrategy idle) throws Exception {
        this.mac = PortIdentity.parseMac(String.format("%02x:%02x:%02x:%02x:%02x:%02x", mac48 >>> 40 & 0xFF, mac48 >>> 32 & 0xFF,
                mac48 >>> 24 & 0xFF, mac48 >>> 16 & 0xFF, mac48 >>> 8 & 0xFF, mac48 & 0xFF));
        EthernetLinkConfig c = tweak.apply(EthernetLinkConfig.of(kind, PortIdentity.of(mac, ip)));
        this.link = Netns.call(ns, () -> options == null
                ? AfPacketLink.open(NetworkBuilder.HOST_INTERFACE, c, AfPacketOptions.Version.V2)
                : AfPacketLink.open(NetworkBuilder.HOST_INTERFACE, c, options));
        DeviceConfig dc = new DeviceConfig(name, mac, 64, 4096, 16, 8192, 1024, 16, 256, window, 64, LossRecovery.goBackN(),
                rate);
        this.device = new SoftDevice(dc, link, new java.util.SplittableRandom(mac48), System.nanoTime());
        this.driver = idle == null ? new RealTimeDriver(device, RealTimeDriver.Idle.BACKOFF) : new RealTimeDriver(device, idle);
        this.pd = device.allocPd();
        this.cq = device.createCq(4096, null);
        this.mr = pd.registerMemory(arena.allocate(regionSize, 4096), RW);
    }

    QueuePair rcQp() {
        return pd.createQp(MemoryFabric.init(QpType.RC, cq, 1024));
    }

    QpEndpoint endpoint(QueuePair qp, int psn) {
        return new QpEndpoint(0, qp.qpNum(), psn, link.datapath().gids().gidFor(link.datapath().config().framing()), mac,
                PathMtu.ofBytes(link.maxPayload()), mr.rkey(), mr.address(), mr.length(), 16, QpEndpoint.Features.ALL);
    }

    /** Connects {@code qa} of {@code a} and {@code qb} of {@code b} (RoCEv1: the GID names the MAC, no ARP). */
    static void connect(UrdmaHost a, QueuePair qa, UrdmaHost b, QueuePair qb, MemoryFabric.Connection c) {
        QpEndpoint ea = a.endpoint(qa, 0x100), eb = b.endpoint(qb, 0x200);
        QpConnector.toInit(qa, c, 0);
        QpConnector.toInit(qb, c, 0);
        QpConnector.toRts(qa, ea, eb, b.mac, c);
        QpConnector.toRts(qb, eb, ea, a.mac, c);
    }

    /** Posts {@code count} signaled WRITEs of {@code size} bytes from {@code src} of this MR to {@code dst} of the peer's. */
    void postWrites(QueuePair qp, MemoryRegion peer, long dst, int count, int size) {
        for (int i = 0; i < count; i++) {
            qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(mr, (long) i * size, size).remote(peer.address() + dst + (long) i * size, peer.rkey()));
        }
    }

    /** Waits for {@code count} successful completions; an AssertionError names what arrived instead. */
    void awaitCompletions(int count, long timeoutMs) {
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) wc[i] = new WorkCompletion();
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        int got = 0;
        while (got < count) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(device.name() + ": " + got + " of " + count + " completions in " + timeoutMs + " ms; link "
                        + link.counters());
            }
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc[i].status != WcStatus.SUCCESS) throw new AssertionError(device.name() + ": " + wc[i]);
            }
            got += n;
            if (n == 0) Thread.onSpinWait();
        }
    }

    static void fill(MemorySegment s, long off, long len, int seed) {
        for (long i = 0; i < len; i++) s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (i * 31 + seed + (i >>> 12)));
    }

    @Override
    public void close() {
        driver.close();
        link.close();
        arena.close();
    }
}
