package org.urdma.transport.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.verbs.AsyncEvent;
import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Device;
import org.urdma.verbs.DeviceAttributes;
import org.urdma.verbs.Gid;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QueuePair;

/**
 * A software RDMA device: the engine of one port. All protocol state is owned by whoever calls
 * {@link #doWork(long)} (a driver agent, or a test stepping a virtual clock). Applications post into the
 * queues and poll CQs from their own thread; control operations (create QP, modify, register memory) run
 * on the engine thread through {@link #control}, like commands to a NIC.
 */
public final class SoftDevice implements Device, PacketSink {
    /** Timer wheel tick: 1.024 µs, finer than the 4.096 µs ACK timeout unit. */
    static final long TICK_NANOS = 1024;
    static final int WHEEL_TICKS = 1024;

    private final DeviceConfig config;
    private final Link link;
    private final RandomGenerator random;
    private final MemoryKeyTable keys;
    private final Int2ObjectHashMap<SoftQp> qpsByNum = new Int2ObjectHashMap<>();
    private SoftQp[] qps = new SoftQp[0];
    private final DeadlineTimerWheel timers;
    /** No timer is due before this time (the earliest deadline scheduled since the wheel was last polled). */
    private long timerCheck = Long.MAX_VALUE;
    private final Long2ObjectHashMap<SoftQp> timerOwners = new Long2ObjectHashMap<>();
    private final DeadlineTimerWheel.TimerHandler onTimer = this::onTimerExpiry;
    private final ManyToOneConcurrentArrayQueue<ControlTask<?>> controlQueue = new ManyToOneConcurrentArrayQueue<>(256);
    private final ManyToOneConcurrentArrayQueue<AsyncEvent> asyncEvents = new ManyToOneConcurrentArrayQueue<>(1024);
    private volatile Thread engineThread;
    private volatile Runnable inlinePass;
    private static final java.lang.invoke.VarHandle ENGINE_THREAD;

    static {
        try {
            ENGINE_THREAD = java.lang.invoke.MethodHandles.lookup().findVarHandle(SoftDevice.class, "engineThread", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private int nextQpn;
    /** Index of the QP the next pass serves first. */
    private int nextFirst;
    private long now;
    /** Engine passes so far (doWork calls); a coalesced ACK waits for the next one. */
    private long passes;
    // counters
    long rxUnknownQp, rxDropped, rxBadPkey, txBackPressure;
    // telemetry (engine thread only; see org.urdma.transport.counters and .journal)
    private final EngineCounters counters;
    private final EventJournal journal;

    public SoftDevice(DeviceConfig config, Link link, RandomGenerator random, long startNanos) {
        this(config, link, random, startNanos, EngineCounters.inMemory(config.name()), EventJournal.NONE);
    }

    /**
     * With the engine counters and event journal it reports into (both owned by the caller, who closes them
     * after the engine has stopped). The other constructor counts in memory and journals nothing.
     */
    public SoftDevice(DeviceConfig config, Link link, RandomGenerator random, long startNanos,
                      EngineCounters counters, EventJournal journal) {
        this.counters = java.util.Objects.requireNonNull(counters, "counters");
        this.journal = java.util.Objects.requireNonNull(journal, "journal");
        this.config = config;
        this.link = link;
        this.random = random;
        this.keys = new MemoryKeyTable(random, config.maxMr());
        this.keys.engineExecutor(r -> control(() -> {
            r.run();
            return null;
        }));
        this.timers = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNanos, TICK_NANOS, WHEEL_TICKS);
        this.now = startNanos;
        this.nextQpn = 0x11 + random.nextInt(0x1000);
    }

    // ---------------------------------------------------------------- engine loop

    /** One pass of the engine at time {@code now}: control commands, timers, receive, transmit. Returns work done. */
    public int doWork(long now) {
        this.now = now;
        int work = 0;
        ControlTask<?> t;
        while ((t = controlQueue.poll()) != null) {
            t.run();
            work++;
        }
        // arrivals first: an ACK already waiting must count before a timer judges the QP silent
        work += link.receive(now, this, 256);
        work += pollTimers(now);
        // round robin: each pass starts one QP further on, so with a burst per QP no QP is always served last
        SoftQp[] list = qps;
        int n = list.length;
        if (n > 0) {
            int first = nextFirst < n ? nextFirst : 0;
            nextFirst = first + 1;
            for (int i = first; i < n; i++) work += list[i].progress(now);
            for (int i = 0; i < first; i++) work += list[i].progress(now);
        }
        // what this pass produced leaves in this pass: one kernel send for the requests and ACKs together
        work += link.flush(now);
        passes++;
        return work;
    }

    private int pollTimers(long now) {
        int n = 0;
        if (timers.timerCount() == 0 || now < timerCheck) {
            // nothing is due before timerCheck: move the wheel to now without visiting the spokes it passes (their
            // timers are not due; the wheel comes round to them again)
            if (timers.currentTickTime() <= now) timers.currentTickTime(now);
            return 0;
        }
        // Catch up tick by tick, but at most one rotation: that visits every spoke, so every due timer fires;
        // after a long gap (a virtual-clock jump, a GC pause) the wheel then jumps straight to now.
        int spokes = 0;
        do {
            n += timers.poll(now, onTimer, 64);
        } while (timers.currentTickTime() <= now && ++spokes <= WHEEL_TICKS);
        if (timers.currentTickTime() <= now) timers.currentTickTime(now);
        // every wheel timer is a QP's retry or RNR timer, and each QP knows its own deadlines
        long next = Long.MAX_VALUE;
        for (SoftQp qp : qps) next = Math.min(next, qp.nextDeadline());
        timerCheck = next;
        return n;
    }

    private boolean onTimerExpiry(TimeUnit unit, long now, long timerId) {
        SoftQp qp = timerOwners.remove(timerId);
        if (qp != null) qp.onTimer(timerId, now);
        return true;
    }

    long scheduleTimer(SoftQp owner, long deadline) {
        long id = timers.scheduleTimer(deadline);
        if (deadline < timerCheck) timerCheck = deadline;
        timerOwners.put(id, owner);
        return id;
    }

    void cancelTimer(long id) {
        if (id != DeadlineTimerWheel.NULL_DEADLINE && timerOwners.remove(id) != null) timers.cancelTimer(id);
    }

    /** Earliest time this device has something to do (link arrival, timer, end of a QP's pacing), for a discrete-event driver. */
    public long nextEventTime() {
        long timer = Long.MAX_VALUE;
        long paced = Long.MAX_VALUE;
        for (SoftQp qp : qps) {
            timer = Math.min(timer, qp.nextDeadline());
            paced = Math.min(paced, qp.pacingDeadline());
        }
        if (timer != Long.MAX_VALUE && timer < Long.MAX_VALUE - TICK_NANOS) {
            timer += TICK_NANOS; // the wheel fires on the tick after the deadline
        }
        return Math.min(link.nextEventTime(), Math.min(timer, paced));
    }

    /** Whether any QP has work it could do right now without time passing. */
    public boolean hasPendingWork() {
        for (SoftQp qp : qps) {
            if (qp.hasPendingWork()) return true;
        }
        return false;
    }

    @Override
    public void onPacket(RxPacket p, long now) {
        if ((p.pkey() & 0x7FFF) != 0x7FFF) { // only the default partition exists on this port
            rxBadPkey++;
            return;
        }
        SoftQp qp = qpsByNum.get(p.destQp());
        if (qp == null) {
            rxUnknownQp++;
            return;
        }
        qp.onPacket(p, now);
    }

    /** A frame slot for one packet, or null when the link pushes back (the caller tries again on a later pass). */
    TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        TxPacket t = link.claim(opcode, payloadLength, route, now);
        if (t == null) txBackPressure++;
        return t;
    }

    void commit(TxPacket t, Route route, long now) {
        link.commit(t, route, now);
    }

    // ---------------------------------------------------------------- control plane

    public boolean hasEngineThread() {
        return engineThread != null;
    }

    /** Binds the engine to the calling thread (the driver's agent calls this on start). */
    public void bindEngineThread(Thread t) {
        engineThread = t;
    }

    /**
     * Inline driving (like an Aeron client's invoker mode): {@code pass} runs one engine pass at the driver's clock,
     * and polling a CQ of this device runs it first, so the application thread is the engine's only thread. Passes
     * are claimed with {@link #tryEnterEngine()}: another thread polling, or a control call, never runs one at the
     * same time. Null: no inline driver (an agent thread drives, or a test steps {@link #doWork}).
     */
    public void inlinePass(Runnable pass) {
        inlinePass = pass;
    }

    /** Whether an inline driver runs this device's passes on the threads that poll its CQs. */
    public boolean drivenInline() {
        return inlinePass != null;
    }

    /** Inline driving: claims the engine for one pass on the calling thread; false when another thread holds it. */
    public boolean tryEnterEngine() {
        return ENGINE_THREAD.compareAndSet(this, (Thread) null, Thread.currentThread());
    }

    /** Ends a pass claimed with {@link #tryEnterEngine()}. */
    public void exitEngine() {
        ENGINE_THREAD.setRelease(this, (Thread) null);
    }

    /** The application polls a CQ: with an inline driver the engine makes its pass first. */
    void invokeInline() {
        Runnable pass = inlinePass;
        if (pass != null) pass.run();
    }

    /**
     * Runs a control operation on the engine thread and returns its result (inline when there is no driver). With
     * an inline driver the caller queues it and runs engine passes until one has run it (or another thread's has).
     */
    public <T> T control(Supplier<T> op) {
        Thread e = engineThread;
        if (e == Thread.currentThread()) return op.get();
        Runnable pass = inlinePass;
        if (e == null && pass == null) return op.get();
        ControlTask<T> task = new ControlTask<>(op);
        while (!controlQueue.offer(task)) Thread.onSpinWait();
        while (!task.done) {
            pass = inlinePass;
            if (pass != null) {
                pass.run();
                if (!task.done) Thread.onSpinWait();
                continue;
            }
            LockSupport.parkNanos(10_000);
            if (engineThread == null && inlinePass == null) { // driver stopped meanwhile: run here
                if (controlQueue.remove(task)) task.run();
            }
        }
        if (task.error != null) {
            if (task.error instanceof RuntimeException re) throw re;
            throw new IllegalStateException(task.error);
        }
        return task.result;
    }

    private static final class ControlTask<T> {
        final Supplier<T> op;
        volatile boolean done;
        T result;
        Throwable error;

        ControlTask(Supplier<T> op) {
            this.op = op;
        }

        void run() {
            try {
                result = op.get();
            } catch (Throwable t) {
                error = t;
            }
            done = true;
        }
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
        if (init.type() == org.urdma.verbs.QpType.UD && init.srq() != null) {
            // allowed: UD QPs may use an SRQ
        }
        if (init.maxSendWr() > config.maxQpWr()) {
            throw new IllegalArgumentException("cap.max_send_wr: " + init.maxSendWr() + " exceeds device max_qp_wr " + config.maxQpWr());
        }
        if (init.maxRecvWr() > config.maxQpWr()) {
            throw new IllegalArgumentException("cap.max_recv_wr: " + init.maxRecvWr() + " exceeds device max_qp_wr " + config.maxQpWr());
        }
        if (init.maxSendSge() > config.maxSge() || init.maxRecvSge() > config.maxSge()) {
            throw new IllegalArgumentException("cap.max_send_sge/max_recv_sge: exceed device max_sge " + config.maxSge());
        }
        if (init.maxInlineData() > config.maxInline()) {
            throw new IllegalArgumentException("cap.max_inline_data: " + init.maxInlineData() + " exceeds device max " + config.maxInline());
        }
        return control(() -> {
            if (qpsByNum.size() >= config.maxQp()) throw new IllegalStateException("qp: device limit of " + config.maxQp() + " QPs reached");
            int qpn;
            do {
                qpn = nextQpn;
                nextQpn = (nextQpn + 1) & 0xFFFFFF;
                if (nextQpn < 2) nextQpn = 2; // QP0/QP1 are special
            } while (qpsByNum.containsKey(qpn));
            SoftQp qp = new SoftQp(this, pd, init, qpn);
            qpsByNum.put(qpn, qp);
            List<SoftQp> l = new ArrayList<>(List.of(qps));
            l.add(qp);
            qps = l.toArray(new SoftQp[0]);
            return qp;
        });
    }

    void destroyQp(SoftQp qp) {
        control(() -> {
            qp.cancelTimers();
            qpsByNum.remove(qp.qpNum());
            List<SoftQp> l = new ArrayList<>(List.of(qps));
            l.remove(qp);
            qps = l.toArray(new SoftQp[0]);
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
        return new DeviceAttributes(config.maxQp(), config.maxQpWr(), config.maxSge(), config.maxCqe(), config.maxMr(),
                Integer.MAX_VALUE, config.maxRdAtomic(), config.maxRdAtomic(), 1024, config.maxQpWr(), config.maxInline());
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
        if (entries <= 0 || entries > config.maxCqe()) {
            throw new IllegalArgumentException("cqe: must be 1.." + config.maxCqe() + ", was " + entries);
        }
        if (channel != null && !(channel instanceof SoftChannel)) {
            throw new IllegalArgumentException("channel: must come from createCompletionChannel of this device");
        }
        return new SoftCq(this, entries, (SoftChannel) channel);
    }

    @Override
    public void close() {
        control(() -> {
            for (SoftQp qp : qps) qp.cancelTimers();
            return null;
        });
    }

    public DeviceConfig config() {
        return config;
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

    /** Where the engine journals events ({@link EventJournal#NONE} unless given one). */
    public EventJournal journal() {
        return journal;
    }

    /** Engine passes completed so far. */
    public long passes() {
        return passes;
    }

    public long rxUnknownQp() {
        return rxUnknownQp;
    }

    /** Packets whose P_Key is not the default partition's (dropped). */
    public long rxBadPkey() {
        return rxBadPkey;
    }

    public long rxDropped() {
        return rxDropped;
    }
}
