package org.urdma.transport.api;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.ConnectionManager;
import org.urdma.transport.driver.EngineDriver;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.Device;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;

/**
 * An open urdma device: the verbs {@link Device}, its link and what drives its engine, with one protection domain
 * for the application and its connections. Made by {@link Urdma#open} or {@link Urdma#memoryPair}; closing it stops
 * the engine and closes the link (and every QP, CQ and region made on it).
 */
public final class UrdmaDevice implements AutoCloseable {
    private final SoftDevice device;
    private final AutoCloseable link;
    /** The Ethernet port (ARP, GID table), or null on the memory link, where the exchanged MAC is used. */
    private final EthernetDatapath port;
    private final FramingKind framing;
    private final EngineDriver driver;
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final String describe;
    private boolean closed;
    private RdmaCm rdmaCm;

    UrdmaDevice(SoftDevice device, AutoCloseable link, EthernetDatapath port, FramingKind framing, EngineDriver driver,
                String describe) {
        this.device = device;
        this.link = link;
        this.port = port;
        this.framing = framing;
        this.driver = driver;
        this.describe = describe;
        this.pd = device.allocPd();
    }

    /** {@return the verbs device: CQs, completion channels, more protection domains} */
    public Device verbs() {
        return device;
    }

    /** {@return the protection domain connections made by this device use; register the memory they access in it} */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Registers zeroed, page-aligned off-heap memory (freed when the device closes) in {@link #pd()}.
     *
     * @param bytes  its length
     * @param access {@link org.urdma.verbs.AccessFlags} bits
     * @return the region
     */
    public MemoryRegion register(long bytes, int access) {
        if (bytes <= 0) throw new IllegalArgumentException("bytes: must be > 0, was " + bytes);
        return pd.registerMemory(arena.allocate(bytes, 4096), access);
    }

    /** {@return the GID peers address this device by: IPv4-mapped for RoCEv2 with an address, else MAC-derived} */
    public Gid gid() {
        return port != null ? port.gids().gidFor(framing) : device.gid(0);
    }

    /** {@return the wire format} */
    FramingKind framing() {
        return framing;
    }

    /** {@return the largest path MTU the link carries} */
    public PathMtu mtu() {
        int max = device.link().maxPayload();
        PathMtu best = PathMtu.MTU_256;
        for (PathMtu m : PathMtu.values()) if (m.bytes() <= max) best = m;
        return best;
    }

    /** {@return for banners: the link, framing and driver} */
    public String describe() {
        return describe + ", " + framing + ", engine on " + driver.describe();
    }

    /**
     * Listens for {@link #connect} calls from peers on TCP {@code port} of every address of this network namespace
     * (0: a free port, see {@link RdmaServer#port()}).
     *
     * @param port the TCP port
     * @return the listening endpoint
     * @throws RdmaConnectException if the port cannot be bound
     */
    public RdmaServer listen(int port) {
        return listen(new InetSocketAddress(port));
    }

    /**
     * As {@link #listen(int)} on one address.
     *
     * @param bind the address and port
     * @return the listening endpoint
     */
    public RdmaServer listen(InetSocketAddress bind) {
        ConnectionManager cm = new ConnectionManager();
        try {
            return new RdmaServer(this, cm, cm.listen(bind));
        } catch (ConnectionException e) {
            cm.close();
            throw new RdmaConnectException(e.getMessage(), e);
        }
    }

    /**
     * Connects a new QP to the one a server at {@code host:port} accepts for it, exchanging private data (e.g. an
     * address and R_Key, see {@link RemoteRegion}). Refused connections are retried until {@code options.timeout()}.
     *
     * @param host    the server's address (its kernel's, for the out-of-band TCP)
     * @param port    the server's TCP port
     * @param options the QP to make, the private data to send and the timeout
     * @return the connection, its QP in RTS
     * @throws RdmaConnectException naming what failed: refused or no answer within the timeout, the peer closed
     *                              or vanished during the exchange, or its answer was not urdma's
     */
    public RdmaConnection connect(String host, int port, EndpointOptions options) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("port: must be 1..65535, was " + port);
        ConnectionManager cm = new ConnectionManager(new ConnectionManager.Config(options.timeout(), options.timeout()));
        try {
            return RdmaConnection.establish(this, cm, cm.connect(new InetSocketAddress(host, port)), options);
        } catch (ConnectionException e) {
            cm.close();
            throw new RdmaConnectException("connect to " + host + ":" + port + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            cm.close();
            throw e;
        }
    }

    /**
     * rdma_cm's wire protocol on this device (QP1 and the IB CM), started on first use with the CM's default timing;
     * librdmacm programs connect to its listeners, and its connect reaches theirs.
     *
     * @return the device's rdma_cm endpoint
     */
    public RdmaCm rdmaCm() {
        return rdmaCm(org.urdma.transport.gsi.CmConfig.defaults());
    }

    /** As {@link #rdmaCm()}, started with {@code timing} if it starts here (tests: a response timeout load cannot outlast). */
    synchronized RdmaCm rdmaCm(org.urdma.transport.gsi.CmConfig timing) {
        if (closed) throw new IllegalStateException("rdmaCm: device " + device.name() + " is closed");
        if (rdmaCm == null) rdmaCm = new RdmaCm(this, timing);
        return rdmaCm;
    }

    /** {@return the device's engine counters, read-only} */
    public org.urdma.transport.counters.DeviceStats stats() {
        return device.stats();
    }

    SoftDevice soft() {
        return device;
    }

    EthernetDatapath port() {
        return port;
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (rdmaCm != null) rdmaCm.close();
        device.close(); // cancels the QPs' timers on the engine thread, while it still runs
        driver.close();
        try {
            if (link != null) link.close();
        } catch (Exception e) {
            throw new IllegalStateException("close: link of " + device.name() + ": " + e.getMessage(), e);
        } finally {
            arena.close();
        }
    }
}
