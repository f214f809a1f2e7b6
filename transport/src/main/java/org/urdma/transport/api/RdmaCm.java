package org.urdma.transport.api;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.transport.gsi.CmAgent;
import org.urdma.transport.gsi.CmConfig;
import org.urdma.transport.gsi.CmId;
import org.urdma.transport.gsi.CmPeer;
import org.urdma.transport.gsi.CmRej;
import org.urdma.transport.gsi.CmaHeader;
import org.urdma.transport.gsi.Gsi;
import org.urdma.transport.gsi.PortSpace;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.port.PortIdentity;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Gid;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * rdma_cm's wire protocol on a urdma device (what {@code rdma_listen}/{@code rdma_accept}/{@code rdma_connect}/
 * {@code rdma_disconnect}/{@code rdma_reject} put on the wire): QP1, the IB CM's MADs, service IDs of RDMA_PS_TCP and
 * the IP private-data header, so librdmacm programs (rping, perftest -R) connect to urdma and urdma to them. Made by
 * {@link UrdmaDevice#rdmaCm()}; a thread of its own drives QP1 and the CM's timers.
 */
public final class RdmaCm implements AutoCloseable {
    /** Private data a connect carries: a REQ's 92 bytes less rdma_cm's 36-byte IP header. */
    public static final int MAX_CONNECT_PRIVATE_DATA = 92 - CmaHeader.LENGTH;
    /** Private data an accept carries: a REP's 196 bytes. */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;

    /** The device the application opened, for {@link #connect}/{@link #accept}; null for {@link #on}'s bare engines. */
    private final UrdmaDevice device;
    private final SoftDevice soft;
    private final ProtectionDomain pd;
    /** The Ethernet port (ARP), or null on the memory link. */
    private final EthernetDatapath port;
    private final Gsi gsi;
    private final CmAgent agent;
    private final int ipv4;
    private final Thread thread;
    private volatile boolean running = true;

    RdmaCm(UrdmaDevice device, CmConfig config) {
        this(device, device.soft(), device.pd(), device.port(), config);
    }

    private RdmaCm(UrdmaDevice device, SoftDevice soft, ProtectionDomain pd, EthernetDatapath port, CmConfig config) {
        this.device = device;
        this.soft = soft;
        this.pd = pd;
        this.port = port;
        this.ipv4 = localIpv4(soft, port);
        this.gsi = new Gsi(soft, pd, this::macOf);
        this.agent = new CmAgent(config, gsi, new SplittableRandom(System.nanoTime()), guid(soft.mac()), gidOf(ipv4));
        agent.stats().counters(soft.counters());
        gsi.agent(agent);
        this.thread = Thread.ofPlatform().daemon().name("urdma-cm-" + soft.name()).start(this::run);
    }

    /**
     * QP1 and the CM on an engine that was not opened through {@link Urdma} (e.g. {@code urdma perf}'s own): REQs for
     * ports nobody listens on get a REJ, and its QPs connect through {@link #connectQp}/{@link #acceptQp}.
     *
     * @param soft the engine, its driver running
     * @param pd   the protection domain QP1's buffers are registered in
     * @param port the Ethernet port (ARP and this side's IPv4 address)
     * @return the CM, its thread running; close it before the engine
     */
    public static RdmaCm on(SoftDevice soft, ProtectionDomain pd, EthernetDatapath port) {
        return new RdmaCm(null, soft, pd, port, CmConfig.defaults());
    }

    /** {@return this port's IPv4 address: the Ethernet port's, or 10.0.0.x (x = the MAC's last byte) on the memory link} */
    public String address() {
        return PortIdentity.ipv4String(ipv4);
    }

    /** {@return counts of what the CM did, for reports and tests} */
    public String stats() {
        return agent.stats().toString();
    }

    /** The CM's counts as numbers (its thread writes them; read after the fact). */
    org.urdma.transport.gsi.CmStats cmStats() {
        return agent.stats();
    }

    private static int localIpv4(SoftDevice d, EthernetDatapath port) {
        if (port != null && port.config().port().hasIpv4()) return port.config().port().ipv4();
        return 0x0A000000 | (d.mac()[5] & 0xFF);
    }

    static byte[] gidOf(int ip) {
        return Gid.fromIpv4(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip}).toBytes();
    }

    /** The CA GUID: the port MAC as EUI-64, as rxe derives it. */
    static long guid(byte[] mac) {
        return ((long) (mac[0] ^ 0x02) & 0xFF) << 56 | (mac[1] & 0xFFL) << 48 | (mac[2] & 0xFFL) << 40 | 0xFFL << 32 | 0xFEL << 24
                | (mac[3] & 0xFFL) << 16 | (mac[4] & 0xFFL) << 8 | (mac[5] & 0xFFL);
    }

    private byte[] macOf(byte[] gid) {
        Gid g = Gid.of(gid);
        if (GidTable.isMacDerived(g)) return GidTable.macOf(g);
        if (!GidTable.isIpv4Mapped(g)) return null;
        if (port == null) { // memory link: 10.0.0.x is the device whose MAC ends in x
            return new byte[] {2, 0, 0, 0, 0, (byte) GidTable.ipv4Of(g)};
        }
        try {
            return NeighborResolver.resolve(soft, port, g, 1_000_000_000L);
        } catch (ConnectionException e) {
            return null;
        }
    }

    /** Longest sleep of an idle CM thread: QP1 is on for every real port, so an idle one must cost next to nothing. */
    static final long IDLE_PARK_MAX_NS = 1_000_000;

    private void run() {
        long park = 50_000;
        while (running) {
            int work;
            synchronized (agent) {
                long now = System.nanoTime();
                work = gsi.poll(now) + agent.poll(now);
            }
            if (work == 0) {
                LockSupport.parkNanos(park);
                park = Math.min(IDLE_PARK_MAX_NS, park * 2);
            } else {
                park = 50_000;
            }
        }
    }

    // ---------------------------------------------------------------- listen / accept / reject

    /**
     * Listens on {@code port} of RDMA_PS_TCP (service ID 0x0000000001060000 | port), as rdma_listen does: REQs for it
     * wait for {@link RdmaCmListener#accept} or {@link RdmaCmListener#reject}; REQs for other ports are rejected at once.
     * The backlog is rdma_listen's 0: 1024 REQs not yet taken.
     *
     * @param port the IP port (1..65535)
     * @return the listener; closing it stops listening
     */
    public RdmaCmListener listen(int port) {
        return listen(port, 0);
    }

    /**
     * Listens as {@link #listen(int)} does with {@code backlog} REQs allowed to wait untaken (MRAed when they wait long);
     * the next is rejected at once with REJ reason 3 (no resources), and those still waiting when the listener closes
     * with reason 28 (consumer defined), as the kernel refuses the unanswered requests of a destroyed listener.
     *
     * @param port    the IP port (1..65535)
     * @param backlog REQs that may wait for the application; 0 or less: 1024, as rdma_listen's 0
     * @return the listener; closing it stops listening
     */
    public RdmaCmListener listen(int port, int backlog) {
        long sid = PortSpace.TCP.serviceId(port);
        BlockingQueue<CmId> requests = new LinkedBlockingQueue<>();
        synchronized (agent) {
            agent.listen(sid, requests::add, backlog);
        }
        return new RdmaCmListener(this, sid, requests);
    }

    void unlisten(long sid) {
        synchronized (agent) {
            agent.unlisten(sid, System.nanoTime());
        }
    }

    /** The application takes a REQ it was told of; false when it is gone meanwhile (see {@link CmAgent#take}). */
    boolean take(CmId id) {
        synchronized (agent) {
            return agent.take(id);
        }
    }

    RdmaConnection accept(CmId id, EndpointOptions o) {
        return accept(id, o, qp -> { });
    }

    /** Accepts with a new QP; {@code inInit} sees it in INIT, before the REP lets the client send (receives go there). */
    RdmaConnection accept(CmId id, EndpointOptions o, java.util.function.Consumer<QueuePair> inInit) {
        Endpoint e = Endpoint.make(device(), o);
        Waiter w = new Waiter();
        try {
            e.toInit(o);
            inInit.accept(e.qp);
            byte[] pd = o.privateData();
            if (pd.length > MAX_ACCEPT_PRIVATE_DATA) {
                throw new IllegalArgumentException("privateData: rdma_cm accepts with at most " + MAX_ACCEPT_PRIVATE_DATA + " bytes, was " + pd.length);
            }
            synchronized (agent) {
                id.qpParameters(ThreadLocalRandom.current().nextInt(1 << 24), Math.min(id.mtuCode(), CmQp.code(device.mtu())),
                        Math.min(16, Math.max(1, id.responderResources())), Math.min(16, Math.max(1, id.initiatorDepth())));
                agent.accept(id, new CmQp(e.qp), w, pd, System.nanoTime());
            }
            w.await(o, "accept");
            byte[] theirs = id.peerPrivateData();
            byte[] user = Arrays.copyOfRange(theirs, CmaHeader.LENGTH, theirs.length);
            return e.connection(this, id, user);
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
    }

    void reject(CmId id, byte[] privateData) {
        synchronized (agent) {
            agent.reject(id, CmRej.CONSUMER_DEFINED, privateData, System.nanoTime());
        }
    }

    // ---------------------------------------------------------------- connect / disconnect

    /**
     * Connects a new QP to the listener at {@code ip:port} (RDMA_PS_TCP), as rdma_connect does, sending
     * {@code options.privateData()} (at most 56 bytes, after rdma_cm's IP header).
     *
     * @param ip   the server's IPv4 address (its urdma port's)
     * @param port the server's IP port
     * @param o    the QP to make (RC or UC), the private data and how long to wait
     * @return the connection, its QP in RTS; closing it sends a DREQ
     * @throws RdmaConnectException rejected (naming the REJ reason), or no answer within {@code options.timeout()}
     */
    public RdmaConnection connect(String ip, int port, EndpointOptions o) {
        Target t = target(ip, port, o.privateData());
        Endpoint e = Endpoint.make(device(), o);
        Waiter w = new Waiter();
        CmId id;
        try {
            e.toInit(o);
            synchronized (agent) {
                id = agent.newId().qpParameters(ThreadLocalRandom.current().nextInt(1 << 24), CmQp.code(device.mtu()), 16, 16);
                agent.connect(id, PortSpace.TCP.serviceId(port), new CmPeer(t.gid(), t.mac(), 1), t.gid(), new CmQp(e.qp), w,
                        t.privateData(), System.nanoTime());
            }
            try {
                w.await(o, "connect to " + ip + ":" + port);
            } catch (RdmaConnectException ex) {
                giveUp(id);
                throw ex;
            }
            return e.connection(this, id, id.peerPrivateData());
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
    }

    private UrdmaDevice device() {
        if (device == null) throw new IllegalStateException("rdma_cm: this CM runs on a bare engine; use connectQp/acceptQp");
        return device;
    }

    // ---------------------------------------------------------------- an application's own QPs

    /**
     * Connects {@code qp} (RC or UC, in INIT) to the listener at {@code ip:port}, as rdma_connect does for a QP made
     * with rdma_create_qp: RTR and RTS from the REP, an RTU back. For applications that keep their own QPs and
     * buffers (perftest's {@code -R}).
     *
     * @param ip       the server's IPv4 address
     * @param port     the server's IP port (RDMA_PS_TCP)
     * @param qp       the QP, in INIT
     * @param mtuBytes the path MTU to offer
     * @param rdAtomic responder resources and initiator depth to offer (RDMA READ and atomics in flight)
     * @param user     private data after rdma_cm's IP header (at most 56 bytes)
     * @param timeout  how long to wait for the connection
     * @return the connection as the CM made it (remote QPN, both PSNs, the MTU, the peer's private data)
     * @throws RdmaConnectException rejected (naming the REJ reason), or no answer within {@code timeout}
     */
    public CmId connectQp(String ip, int port, QueuePair qp, int mtuBytes, int rdAtomic, byte[] user, java.time.Duration timeout) {
        Waiter w = new Waiter();
        CmId id = startConnect(ip, port, qp, mtuBytes, rdAtomic, user, w);
        try {
            w.await(timeout, "connect to " + ip + ":" + port);
        } catch (RdmaConnectException ex) {
            giveUp(id);
            throw ex;
        }
        return id;
    }

    /**
     * {@link #connectQp} without waiting, as rdma_connect on an id with an event channel: the REQ goes out now, and the
     * future completes when the RTU is sent (or fails with an {@link RdmaConnectException} on a REJ or after the CM's
     * last retry). Many connections can be under way at once (cmtime).
     *
     * @param ip       the server's IPv4 address
     * @param port     the rdma_cm port it listens on
     * @param qp       the RC QP to connect (in RESET or INIT)
     * @param mtuBytes the path MTU to offer
     * @param rdAtomic READs and atomics in flight, each way
     * @param user     private data for the server (at most 56 bytes), or null
     * @return the connection being made
     */
    public CompletableFuture<CmId> connectQpAsync(String ip, int port, QueuePair qp, int mtuBytes, int rdAtomic, byte[] user) {
        Waiter w = new Waiter();
        startConnect(ip, port, qp, mtuBytes, rdAtomic, user, w);
        return w.done;
    }

    private CmId startConnect(String ip, int port, QueuePair qp, int mtuBytes, int rdAtomic, byte[] user, Waiter w) {
        Target t = target(ip, port, user);
        synchronized (agent) {
            CmId id = agent.newId().qpParameters(ThreadLocalRandom.current().nextInt(1 << 24), CmQp.code(PathMtu.ofBytes(mtuBytes)),
                    rdAtomic, rdAtomic);
            agent.connect(id, PortSpace.TCP.serviceId(port), new CmPeer(t.gid(), t.mac(), 1), t.gid(), new CmQp(qp), w,
                    t.privateData(), System.nanoTime());
            return id;
        }
    }

    /** Where a REQ goes: the server's GID and MAC, and the REQ's private data (rdma_cm's IP header, then {@code user}). */
    private record Target(byte[] gid, byte[] mac, byte[] privateData) {
    }

    private Target target(String ip, int port, byte[] user) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("port: must be 1..65535, was " + port);
        if (user.length > MAX_CONNECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("privateData: rdma_cm connects with at most " + MAX_CONNECT_PRIVATE_DATA + " bytes, was " + user.length);
        }
        int dst = PortIdentity.parseIpv4(ip);
        byte[] peerGid = gidOf(dst);
        byte[] mac = macOf(peerGid);
        if (mac == null) throw new RdmaConnectException("connect to " + ip + ":" + port + ": no MAC for " + ip + " (ARP got no answer)", null);
        UnsafeBuffer data = new UnsafeBuffer(new byte[CmaHeader.LENGTH + user.length]);
        CmaHeader.putIpv4(data, 0, ipv4, ThreadLocalRandom.current().nextInt(0x8000, 0x10000), dst);
        data.putBytes(CmaHeader.LENGTH, user);
        return new Target(peerGid, mac, data.byteArray());
    }

    /** A connect that timed out or was refused: the REQ is withdrawn with a REJ unless the CM already ended it. */
    private void giveUp(CmId id) {
        synchronized (agent) {
            if (id.state() != org.urdma.transport.gsi.CmState.IDLE) agent.reject(id, CmRej.TIMEOUT, null, System.nanoTime());
        }
    }

    /**
     * Accepts a REQ from {@link RdmaCmListener#nextRequest} with {@code qp} (in INIT): RTR with the REP, RTS when the
     * RTU comes, as rdma_accept does.
     *
     * @param id       the request
     * @param qp       the QP, in INIT
     * @param mtuBytes the largest path MTU this side takes (the REQ's may be smaller)
     * @param rdAtomic the most RDMA READs and atomics in flight this side takes each way
     * @param user     private data for the REP (at most 196 bytes)
     * @param timeout  how long to wait for the RTU
     */
    public void acceptQp(CmId id, QueuePair qp, int mtuBytes, int rdAtomic, byte[] user, java.time.Duration timeout) {
        Waiter w = new Waiter();
        startAccept(id, qp, mtuBytes, rdAtomic, user, w);
        w.await(timeout, "accept");
    }

    /**
     * {@link #acceptQp} without waiting for the RTU, as rdma_accept on an id with an event channel: the REP goes out
     * now, the future completes when the RTU comes (or fails with an {@link RdmaConnectException}).
     *
     * @param id       the request to accept
     * @param qp       the RC QP to connect (in RESET or INIT)
     * @param mtuBytes the path MTU to answer with
     * @param rdAtomic READs and atomics in flight, each way
     * @param user     private data for the client, or null
     * @return the connection being made
     */
    public CompletableFuture<CmId> acceptQpAsync(CmId id, QueuePair qp, int mtuBytes, int rdAtomic, byte[] user) {
        Waiter w = new Waiter();
        startAccept(id, qp, mtuBytes, rdAtomic, user, w);
        return w.done;
    }

    private void startAccept(CmId id, QueuePair qp, int mtuBytes, int rdAtomic, byte[] user, Waiter w) {
        if (user.length > MAX_ACCEPT_PRIVATE_DATA) {
            throw new IllegalArgumentException("privateData: rdma_cm accepts with at most " + MAX_ACCEPT_PRIVATE_DATA + " bytes, was " + user.length);
        }
        synchronized (agent) {
            id.qpParameters(ThreadLocalRandom.current().nextInt(1 << 24), Math.min(id.mtuCode(), CmQp.code(PathMtu.ofBytes(mtuBytes))),
                    Math.min(rdAtomic, Math.max(1, id.responderResources())), Math.min(rdAtomic, Math.max(1, id.initiatorDepth())));
            agent.accept(id, new CmQp(qp), w, user, System.nanoTime());
        }
    }

    // ---------------------------------------------------------------- UD through SIDR (RDMA_PS_UDP)

    /** rdma_cm's Q_Key for RDMA_PS_UDP (RDMA_UDP_QKEY): the kernel refuses a SIDR_REP naming another. */
    public static final int UDP_QKEY = 0x01234567;

    /**
     * What a SIDR_REP said: the UD QP serving the port and its Q_Key, and where it is (for an address handle).
     *
     * @param qpn  the server's UD QP
     * @param qkey its Q_Key
     * @param gid  the server's GID
     * @param mac  the server's MAC
     */
    public record UdTarget(int qpn, int qkey, Gid gid, byte[] mac) {
    }

    /**
     * Answers SIDR requests for {@code port} of RDMA_PS_UDP with {@code udQp} and {@link #UDP_QKEY}, as rdma_accept does
     * on a UD rdma_cm_id (udaddy's server).
     *
     * @param port the IP port
     * @param udQp the UD QP that serves it (its Q_Key should be {@link #UDP_QKEY})
     * @return closing it stops answering (later requests get SID_NOT_SUPPORTED)
     */
    public AutoCloseable sidrListen(int port, QueuePair udQp) {
        if (udQp.type() != QpType.UD) throw new IllegalArgumentException("udQp: SIDR answers with a UD QP, was " + udQp.type());
        long sid = PortSpace.UDP.serviceId(port);
        synchronized (agent) {
            agent.listen(sid, new CmAgent.Listener() {
                @Override
                public void onRequest(CmId id) {
                    // SIDR has no REQ: the agent answers SIDR_REQs itself
                }

                @Override
                public int sidrQpn() {
                    return udQp.qpNum();
                }

                @Override
                public int sidrQkey() {
                    return UDP_QKEY;
                }
            });
        }
        return () -> unlisten(sid);
    }

    /**
     * rdma_connect on a UD rdma_cm_id: a SIDR_REQ for {@code port} of RDMA_PS_UDP at {@code ip} (retried as the CM does),
     * answered with the UD QP and Q_Key that serve it.
     *
     * @param ip      the server's IPv4 address
     * @param port    the IP port
     * @param timeout how long to wait for the SIDR_REP
     * @return the server's QP, Q_Key and address
     * @throws RdmaConnectException no answer, or the server's status was not VALID (naming it)
     */
    public UdTarget sidrResolve(String ip, int port, java.time.Duration timeout) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("port: must be 1..65535, was " + port);
        int dst = PortIdentity.parseIpv4(ip);
        byte[] peerGid = gidOf(dst);
        byte[] mac = macOf(peerGid);
        if (mac == null) throw new RdmaConnectException("SIDR to " + ip + ":" + port + ": no MAC for " + ip + " (ARP got no answer)", null);
        UnsafeBuffer data = new UnsafeBuffer(new byte[CmaHeader.LENGTH]);
        CmaHeader.putIpv4(data, 0, ipv4, ThreadLocalRandom.current().nextInt(0x8000, 0x10000), dst);
        CompletableFuture<UdTarget> answer = new CompletableFuture<>();
        synchronized (agent) {
            agent.sidr(PortSpace.UDP.serviceId(port), new CmPeer(peerGid, mac, 1), new CmId.Events() {
                @Override
                public void onSidrReply(CmId id, int status, int qpn, int qkey, byte[] privateData) {
                    if (status == org.urdma.transport.gsi.SidrRep.VALID) {
                        answer.complete(new UdTarget(qpn, qkey, Gid.of(peerGid), mac));
                    } else {
                        answer.completeExceptionally(new RdmaConnectException("SIDR to " + ip + ":" + port + ": status " + status
                                + (status == org.urdma.transport.gsi.SidrRep.SID_NOT_SUPPORTED ? " (nobody serves the port)" : ""), null));
                    }
                }

                @Override
                public void onTimeout(CmId id) {
                    answer.completeExceptionally(new RdmaConnectException("SIDR to " + ip + ":" + port + ": no answer after every retry", null));
                }
            }, data.byteArray(), System.nanoTime());
        }
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new RdmaConnectException("SIDR to " + ip + ":" + port + ": no answer within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RdmaConnectException r) throw r;
            throw new RdmaConnectException("SIDR to " + ip + ":" + port + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaConnectException("SIDR: interrupted", e);
        }
    }

    /**
     * The MAC of a peer's GID (ARP for an IPv4-mapped one), for a UD address handle to a peer known by its GID only.
     *
     * @param gid the peer's GID
     * @return its MAC, or null when ARP got no answer
     */
    public byte[] macOf(Gid gid) {
        return macOf(gid.toBytes());
    }

    // ---------------------------------------------------------------- multicast (RoCE: no SA)

    /**
     * rdma_join_multicast on a UD rdma_cm_id: the MGID cma gives {@code address} on this port (the RoCEv2 form when
     * its frames carry IP, as cma's RoCE_UDP_ENCAP GID type), {@code qp} attached (null: send only), and the join event's address handle, QPN and Q_Key.
     *
     * @param address the group's IP address
     * @param qp      a UD QP with Q_Key {@link #UDP_QKEY}, or null
     * @return the join; {@link MulticastJoin#leave()} is rdma_leave_multicast
     */
    public MulticastJoin joinMulticast(String address, QueuePair qp) {
        boolean roceV2 = device == null || device.framing() == org.urdma.transport.wire.FramingKind.ROCE2
                || device.framing() == org.urdma.transport.wire.FramingKind.PAXI_STANDARD;
        return MulticastJoin.join(MulticastJoin.parse(address, "address"), roceV2, qp);
    }

    /**
     * rdma_disconnect: a DREQ (the QP to ERROR), then a short wait for the DREP, so a closing device does not take the
     * DREQ down with it; nothing when the connection is already going or gone.
     *
     * @param id a connection from {@link #connectQp} or {@link #acceptQp}
     */
    public void disconnect(CmId id) {
        synchronized (agent) {
            agent.disconnect(id, null, System.nanoTime());
        }
        long deadline = System.nanoTime() + 500_000_000L;
        while (id.state() == org.urdma.transport.gsi.CmState.DREQ_SENT && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(100_000);
        }
    }

    /**
     * rdma_disconnect on many connections at once, without waiting: every DREQ goes out now (its QP to ERROR), and each
     * id leaves {@code DREQ_SENT} when its DREP comes or the CM's last retry passes (cmtime's disconnect step).
     *
     * @param ids connections from {@link #connectQp} or {@link #acceptQp}; those already going or gone are left alone
     */
    public void disconnectAll(java.util.Collection<CmId> ids) {
        synchronized (agent) {
            long now = System.nanoTime();
            for (CmId id : ids) agent.disconnect(id, null, now);
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        gsi.close();
    }

    /** Waits for a connection's outcome (completed on the CM thread). */
    private static final class Waiter implements CmId.Events {
        final CompletableFuture<CmId> done = new CompletableFuture<>();

        @Override
        public void onEstablished(CmId id) {
            done.complete(id);
        }

        @Override
        public void onRejected(CmId id, int reason, byte[] privateData) {
            done.completeExceptionally(new RdmaConnectException("rejected by the peer: " + CmRej.reasonName(reason) + " (REJ reason " + reason + ")", null));
        }

        @Override
        public void onTimeout(CmId id) {
            done.completeExceptionally(new RdmaConnectException("no answer from the peer's CM after every retry", null));
        }

        void await(EndpointOptions o, String what) {
            await(o.timeout(), what);
        }

        void await(java.time.Duration timeout, String what) {
            try {
                done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new RdmaConnectException(what + ": not connected within " + timeout.toMillis() + " ms", e);
            } catch (ExecutionException e) {
                throw new RdmaConnectException(what + ": " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaConnectException(what + ": interrupted", e);
            }
        }
    }

    /** The QP and CQs of one connection being made. */
    private static final class Endpoint {
        final UrdmaDevice device;
        CompletionChannel cc;
        CompletionQueue scq;
        CompletionQueue rcq;
        QueuePair qp;

        Endpoint(UrdmaDevice device) {
            this.device = device;
        }

        static Endpoint make(UrdmaDevice device, EndpointOptions o) {
            if (o.type() != QpType.RC && o.type() != QpType.UC) throw new IllegalArgumentException("type: rdma_cm connects RC or UC QPs, was " + o.type());
            Endpoint e = new Endpoint(device);
            try {
                e.cc = o.completionChannel() ? device.verbs().createCompletionChannel() : null;
                e.scq = device.verbs().createCq(o.depth() * 2, e.cc);
                e.rcq = device.verbs().createCq(o.depth() * 2, e.cc);
                e.qp = device.pd().createQp(new QpInitAttributes().type(o.type()).sendCq(e.scq).recvCq(e.rcq)
                        .maxSendWr(o.depth()).maxRecvWr(o.depth()).maxSendSge(4).maxRecvSge(4));
            } catch (RuntimeException ex) {
                e.close();
                throw ex;
            }
            return e;
        }

        void toInit(EndpointOptions o) {
            QpConnector.toInit(qp, MemoryFabric.Connection.defaults().withAccess(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.REMOTE_READ | (o.type() == QpType.RC ? AccessFlags.REMOTE_ATOMIC : 0)), 0);
        }

        RdmaConnection connection(RdmaCm cm, CmId id, byte[] peerPrivateData) {
            QpEndpoint local = new QpEndpoint(0, qp.qpNum(), id.localPsn(), Gid.of(id.localGid()), device.verbs().mac(),
                    CmQp.mtu(id.mtuCode()), 0, 0, 0, 16, QpEndpoint.Features.ALL);
            QpEndpoint remote = new QpEndpoint(0, id.remoteQpn(), id.remotePsn(), Gid.of(id.remoteGid()), id.peer().mac(),
                    CmQp.mtu(id.mtuCode()), 0, 0, 0, 16, QpEndpoint.Features.ALL);
            return RdmaConnection.ofCm(device, cc, scq, rcq, qp, local, remote, peerPrivateData, () -> cm.disconnect(id));
        }

        void close() {
            if (qp != null) qp.close();
            if (scq != null) scq.close();
            if (rcq != null) rcq.close();
            if (cc != null) cc.close();
        }
    }
}
