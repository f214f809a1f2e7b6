package org.urdma.transport.engine;

import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.DeviceStats;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.verbs.AsyncEvent;
import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Device;
import org.urdma.verbs.DeviceAttributes;
import org.urdma.verbs.Gid;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * A software RDMA device: the engine of one port. All protocol state is owned by whoever calls
 * {@link #doWork(long)} (a driver agent, or a test stepping a virtual clock). Applications post into the
 * queues and poll CQs from their own thread; control operations (create QP, modify, register memory) run
 * on the engine thread through {@link #control}, like commands to a NIC.
 */
public final class SoftDevice implements Device, PacketSink {
    /** Timer wheel tick (see {@link EngineTimers}). */
    static final long TICK_NANOS = EngineTimers.TICK_NANOS;

    private final DeviceConfig config;
    private final Link link;
    private final RandomGenerator random;
    private final MemoryKeyTable keys;
    private final QpTable qps;
    private final RxDemux demux;
    private final McastGroups mcast;
    /** The engine's claim, its control queue and the QPs posted to from other threads. */
    private final EngineGate gate;
    private final EngineTimers timers;
    private final DeviceLimits limits;
    /** The engine's pass: which QPs it serves, in which order. */
    private final PassScheduler scheduler;
    private final ManyToOneConcurrentArrayQueue<AsyncEvent> asyncEvents = new ManyToOneConcurrentArrayQueue<>(1024);
    private long now;
    long txBackPressure;
    // telemetry (engine thread only; see org.urdma.transport.counters and .journal)
    private final EngineCounters counters;
    private final EventJournal journal;
    private final DeviceStats stats;

    public SoftDevice(DeviceConfig config, Link link, RandomGenerator random, long startNanos) {
        this(config, link, random, startNanos, EngineCounters.inMemory(config.name()), EventJournal.NONE);
    }

    /**
     * With the engine counters and event journal it reports into (both owned by the caller, who closes them
     * after the engine has stopped). The other constructor counts in memory and journals nothing.
     */
    public SoftDevice(DeviceConfig config, Link link, RandomGenerator random, long startNanos,
                      EngineCounters counters, EventJournal journal) {
        this.counters = Objects.requireNonNull(counters, "counters");
        this.journal = Objects.requireNonNull(journal, "journal");
        this.config = config;
        this.link = link;
        this.random = random;
        this.keys = new MemoryKeyTable(random, config.maxMr());
        this.keys.engineExecutor(r -> control(() -> {
            r.run();
            return null;
        }));
        this.timers = new EngineTimers(this, startNanos);
        this.gate = new EngineGate(this, config.maxQp());
        this.limits = new DeviceLimits(config, link);
        this.scheduler = new PassScheduler(this, link, gate, timers);
        this.now = startNanos;
        this.qps = new QpTable(random);
        this.mcast = new McastGroups(link);
        this.demux = new RxDemux(this, qps, mcast, counters, journal, config.cnp().mergeNanos());
        this.stats = new SoftDeviceStats(counters, scheduler, qps);
    }

    // ---------------------------------------------------------------- engine loop (see PassScheduler)

    /** One pass of the engine at time {@code now}: control commands, timers, receive, transmit. Returns work done. */
    public int doWork(long now) {
        this.now = now;
        return scheduler.doWork(now, qps.all());
    }

    /** A completion was queued (engine thread): an inline pass returns it before it reads on. */
    void completed() {
        scheduler.completed();
    }

    @Override
    public boolean takesMore() {
        return scheduler.takesMore();
    }

    /** A QP's SQ producer moved (any thread). */
    void onPosted(SoftQp qp) {
        gate.onPosted(qp);
    }

    /**
     * Inline driving, engine claimed by the posting thread: what was posted leaves now, as rxe's post_send runs the
     * requester in the caller's context, instead of in the pass of the application's next CQ poll (which then finds a
     * UC/UD send's completion already there). The first part of an inline pass, and no pass of its own: a coalesced ACK
     * that was due leaves with the request, in one kernel send; arrivals and timers wait for the next pass.
     */
    void servePosted(long now) {
        this.now = now;
        scheduler.serveAndFlush(now);
    }


    /** {@code qp} has something to do (engine thread). */
    void activate(SoftQp qp) {
        scheduler.activate(qp);
    }

    /** Earliest time this device has something to do (link arrival, timer, end of a QP's pacing), for a discrete-event driver. */
    public long nextEventTime() {
        return scheduler.nextEventTime();
    }

    /** Whether any QP has work it could do right now without time passing. */
    public boolean hasPendingWork() {
        return gate.hasPosted() || scheduler.hasReadyWork();
    }

    @Override
    public void onPacket(RxPacket p, long now) {
        demux.onPacket(p, now);
    }

    @Override
    public void onMalformed(DecodeStatus why, long now) {
        demux.onMalformed(why, now);
    }

    /** A frame slot for one packet, or null when the link pushes back (the caller tries again on a later pass). */
    TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        TxPacket t = link.claim(opcode, payloadLength, route, now);
        if (t == null) {
            txBackPressure++;
            scheduler.blocked();
        }
        return t;
    }

    void commit(TxPacket t, Route route, long now) {
        link.commit(t, route, now);
    }

    // ---------------------------------------------------------------- timers

    long scheduleTimer(SoftQp owner, long deadline) {
        return timers.schedule(owner, deadline);
    }

    void cancelTimer(long id) {
        timers.cancel(id);
    }

    // ---------------------------------------------------------------- control plane (see EngineGate)

    public boolean hasEngineThread() {
        return gate.hasEngineThread();
    }

    /** Binds the engine to the calling thread (the driver's agent calls this on start). */
    public void bindEngineThread(Thread t) {
        gate.bind(t);
    }

    /**
     * Inline driving (like an Aeron client's invoker mode): {@code pass} runs one engine pass at the driver's clock,
     * and polling a CQ of this device runs it first, so the application thread is the engine's only thread. Passes
     * are claimed with {@link #tryEnterEngine()}: another thread polling, or a control call, never runs one at the
     * same time. Null: no inline driver (an agent thread drives, or a test steps {@link #doWork}).
     */
    public void inlinePass(Runnable pass) {
        inlinePass(pass, null);
    }

    /**
     * As {@link #inlinePass(Runnable)}, with the driver's clock ({@code pass}'s time source): a post that finds the
     * engine free then sends at once on the posting thread, at {@code clock}'s time (null: it waits for the next pass).
     */
    public void inlinePass(Runnable pass, LongSupplier clock) {
        gate.inlinePass(pass, clock);
    }

    /** Whether an inline driver runs this device's passes on the threads that poll its CQs. */
    public boolean drivenInline() {
        return gate.drivenInline();
    }

    /** Inline driving: claims the engine for one pass on the calling thread; false when another thread holds it. */
    public boolean tryEnterEngine() {
        return gate.tryEnter();
    }

    /**
     * {@link #nextEventTime()} for a thread that may not hold the engine (an idle strategy between inline passes, while
     * another thread polling a CQ runs one): read under the engine's claim, or {@code ifBusy} when another thread is in
     * a pass (the engine's sets are not safe to read beside it).
     */
    public long nextEventTimeOr(long ifBusy) {
        return gate.nextEventTimeOr(ifBusy);
    }

    /** Ends a pass claimed with {@link #tryEnterEngine()}. */
    public void exitEngine() {
        gate.exit();
    }

    /** The application polls a CQ: with an inline driver the engine makes its pass first. */
    void invokeInline() {
        gate.invokeInline();
    }

    /**
     * Runs a control operation on the engine thread and returns its result (inline when there is no driver). With
     * an inline driver the caller queues it and runs engine passes until one has run it (or another thread's has).
     */
    public <T> T control(Supplier<T> op) {
        return gate.control(op);
    }

    void raise(AsyncEventType type, Object element) {
        AsyncEvent e = new AsyncEvent(); // rare: events are not on the data path
        e.type = type;
        e.element = element;
        asyncEvents.offer(e);
    }

    @Override
    public boolean pollAsyncEvent(AsyncEvent out) {
        AsyncEvent e = asyncEvents.poll();
        if (e == null) return false;
        out.type = e.type;
        out.element = e.element;
        return true;
    }

    QueuePair createQp(SoftPd pd, QpInitAttributes init) {
        return createQp(pd, init, 0);
    }

    /**
     * The port's GSI: a UD QP numbered 1 (packets with DestQP 1 reach it like any QP's), for the CM's MADs. One per
     * device; its owner moves it to RTS with Q_Key 0x80010000 and posts its receives.
     */
    public QueuePair createGsiQp(ProtectionDomain pd, QpInitAttributes init) {
        if (!(pd instanceof SoftPd p) || p.device() != this) throw new IllegalArgumentException("pd: must be a PD of device " + config.name());
        if (init == null || init.type() != QpType.UD) throw new IllegalArgumentException("qp_type: the GSI QP is UD");
        return createQp(p, init, 1);
    }

    private QueuePair createQp(SoftPd pd, QpInitAttributes init, int fixedQpn) {
        if (init == null) throw new IllegalArgumentException("qp_init_attr: must not be null");
        if (!(init.sendCq() instanceof SoftCq sc) || sc.device() != this) {
            throw new IllegalArgumentException("send_cq: must be a CQ of device " + config.name());
        }
        if (!(init.recvCq() instanceof SoftCq rc) || rc.device() != this) {
            throw new IllegalArgumentException("recv_cq: must be a CQ of device " + config.name());
        }
        if (init.srq() != null && (!(init.srq() instanceof SoftSrq s) || s.pd() != pd)) {
            throw new IllegalArgumentException("srq: must be an SRQ of the same protection domain");
        }
        limits.checkQpCaps(init);
        return control(() -> {
            limits.checkQpCount(qps.size());
            int qpn = qps.newQpn(fixedQpn, config.name());
            QpCounters c = counters.qp(qpn);
            SoftQp qp;
            try {
                qp = new SoftQp(this, pd, init, qpn, c);
            } catch (RuntimeException e) {
                counters.release(c);
                throw e;
            }
            qps.put(qp);
            return qp;
        });
    }

    /** The device's multicast groups (engine thread). */
    McastGroups mcast() {
        return mcast;
    }

    /** The multicast groups {@code qp} is attached to (a copy). */
    public List<Gid> multicastGroupsOf(QueuePair qp) {
        if (!(qp instanceof SoftQp q)) throw new IllegalArgumentException("qp: must be a QP of device " + config.name());
        return control(() -> mcast.groupsOf(q));
    }

    void destroyQp(SoftQp qp) {
        control(() -> {
            // the ACK a coalescing responder still owes leaves first: the peer's request completed here, and without
            // the ACK the peer would retry into a QP that is gone until RETRY_EXC_ERR
            if (qp.state == QpState.RTR || qp.state == QpState.RTS || qp.state == QpState.SQD) qp.responder.flushOwedAck(now());
            qp.timers.cancelAll();
            mcast.detachAll(qp);
            if (qps.remove(qp)) counters.release(qp.counters);
            qp.destroyed = true; // the ready queue drops it when it comes round
            timers.remove(qp);
            scheduler.remove(qp);
            return null;
        });
    }

    // ---------------------------------------------------------------- Device

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return limits.attributes();
    }

    @Override
    public Gid gid(int index) {
        Gid fromPort = link.gid(index); // the port's GID table on an Ethernet link (index 1: RoCEv2 IPv4-mapped)
        if (fromPort != null) return fromPort;
        if (index != 0) throw new IllegalArgumentException("gid index: only 0 exists on this port, was " + index);
        return config.gid();
    }

    @Override
    public byte[] mac() {
        return config.mac().clone();
    }

    @Override
    public ProtectionDomain allocPd() {
        return new SoftPd(this);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        return new SoftChannel();
    }

    @Override
    public CompletionQueue createCq(int entries, CompletionChannel channel) {
        limits.checkCq(entries);
        if (channel != null && !(channel instanceof SoftChannel)) {
            throw new IllegalArgumentException("channel: must come from createCompletionChannel of this device");
        }
        return new SoftCq(this, entries, (SoftChannel) channel);
    }

    @Override
    public void close() {
        control(() -> {
            for (SoftQp qp : qps.all()) qp.timers.cancelAll();
            return null;
        });
    }

    public DeviceConfig config() {
        return config;
    }

    DeviceLimits limits() {
        return limits;
    }

    public MemoryKeyTable keys() {
        return keys;
    }

    public Link link() {
        return link;
    }

    RandomGenerator random() {
        return random;
    }

    long now() {
        return now;
    }

    /** Where the engine counts ({@code counters().qp(qpn)} when a QP is made, {@code release} when destroyed). */
    public EngineCounters counters() {
        return counters;
    }

    /** {@return the device's counters and scheduler, read-only} */
    public DeviceStats stats() {
        return stats;
    }

    /** Where the engine journals events ({@link EventJournal#NONE} unless given one). */
    public EventJournal journal() {
        return journal;
    }

    /** Engine passes completed so far (the responder coalesces ACKs within one). */
    long passes() {
        return scheduler.passes();
    }
}
