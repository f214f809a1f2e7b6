package org.urdma.transport.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.rate.CnpMerge;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Opcode;
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
    /** The QP the last packet went to, and its number (-1: none): a flow's packets come in runs, the map is a hash. */
    private SoftQp lastQp;
    private int lastQpn = -1;
    /** QPs with something to do in the next pass, in round-robin order: the engine's work follows these, not all QPs. */
    private final ReadyQueue ready = new ReadyQueue();
    /** QPs that may have a timer armed (pruned lazily) and QPs held back by their rate control. */
    private final QpSet timed = new QpSet(QpSet.TIMED);
    private final QpSet paced = new QpSet(QpSet.PACED);
    /** QPs whose application posted send work, from any thread; a QP is in it at most once (SoftQp.postSignal). */
    private final ManyToOneConcurrentArrayQueue<SoftQp> posted;
    /** A post found {@link #posted} full: the next pass looks at every QP once. */
    private volatile boolean sweep;
    /** The link pushed back while the QP being served sent: it goes first in the next pass. */
    private boolean servingBlocked;
    /** An inline pass is receiving: a completion ends the link's burst (see {@link #inlinePass}). */
    private boolean cutBurst;
    private boolean completedInPass;
    /** QP visits (progress calls) so far: the engine's cost follows active QPs. */
    private long qpVisits;
    private final DeadlineTimerWheel timers;
    /** No timer is due before this time (the earliest deadline scheduled since the wheel was last polled). */
    private long timerCheck = Long.MAX_VALUE;
    private final Long2ObjectHashMap<SoftQp> timerOwners = new Long2ObjectHashMap<>();
    private final DeadlineTimerWheel.TimerHandler onTimer = this::onTimerExpiry;
    private final ManyToOneConcurrentArrayQueue<ControlTask<?>> controlQueue = new ManyToOneConcurrentArrayQueue<>(256);
    private final ManyToOneConcurrentArrayQueue<AsyncEvent> asyncEvents = new ManyToOneConcurrentArrayQueue<>(1024);
    private volatile Thread engineThread;
    private volatile Runnable inlinePass;
    /** The inline driver's clock: a post that claims the engine sends at once at this time (see {@link #onPosted}). */
    private volatile java.util.function.LongSupplier inlineClock;
    private static final java.lang.invoke.VarHandle ENGINE_THREAD;

    static {
        try {
            ENGINE_THREAD = java.lang.invoke.MethodHandles.lookup().findVarHandle(SoftDevice.class, "engineThread", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private int nextQpn;
    private long now;
    /** Engine passes so far (doWork calls); a coalesced ACK waits for the next one. */
    private long passes;
    long txBackPressure;
    // telemetry (engine thread only; see org.urdma.transport.counters and .journal)
    private final EngineCounters counters;
    private final EventJournal journal;
    /** PAXI's CNP merge of received CNPs, or null when off. */
    private final CnpMerge cnpMerge;

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
        this.posted = new ManyToOneConcurrentArrayQueue<>(Math.max(16, Math.min(config.maxQp(), 1 << 16)));
        this.cnpMerge = config.cnp().mergeNanos() > 0 ? new CnpMerge(config.cnp().mergeNanos()) : null;
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
        takePosted();
        if (inlinePass != null) return work + inlinePass(now);
        // arrivals first: an ACK already waiting must count before a timer judges the QP silent
        work += link.receive(now, this, 256);
        work += pollTimers(now);
        wakePaced(now);
        work += serveReady(now);
        // what this pass produced leaves in this pass: one kernel send for the requests and ACKs together
        work += link.flush(now);
        passes++;
        return work;
    }

    /**
     * The rest of a pass run inside the application's CQ poll (inline driving), in the order of its latency: what it
     * posted leaves first, served and flushed before the link is read, and a received packet that completes a work
     * request ends the receive burst, so the poll returns that completion at once, not after the ring's next slot is
     * read and what arrived is served (both wait for the next poll, behind what the application posts meanwhile; on a
     * TPACKET_V2 ring the next slot is a cache miss on the critical path otherwise). What this pass read counts before a
     * timer judges a QP silent. What arrived is served in the next pass: a coalesced ACK leaves with the application's reply.
     */
    private int inlinePass(long now) {
        int work = serveAndFlush(now);
        completedInPass = false;
        cutBurst = true;
        try {
            work += link.receive(now, this, 256);
        } finally {
            cutBurst = false;
        }
        work += pollTimers(now);
        passes++;
        return work;
    }

    /** A completion was queued (engine thread): an inline pass returns it before it reads on. */
    void completed() {
        completedInPass = true;
    }

    @Override
    public boolean takesMore() {
        return !(cutBurst && completedInPass);
    }

    /**
     * Serves the QPs that were ready when the pass began, each once with its packet budget (txBurst), in FIFO order;
     * one that still has work goes back to the tail, so QPs take turns. When the link pushes back, the pass ends; the
     * QP that met it goes first in the next pass only if it sent nothing (it has not had its turn yet), else behind
     * those not yet served: on a link that frees one slot per pass, going first again would give every slot to it
     * (a READ responder's stream would starve the other QPs' ACKs until their requesters retry out).
     */
    private int serveReady(long now) {
        int work = 0;
        for (int i = ready.size(); i > 0; i--) {
            SoftQp qp = ready.poll();
            if (qp.destroyed) continue;
            servingBlocked = false;
            qpVisits++;
            int w = qp.progress(now);
            work += w;
            if (servingBlocked) {
                servingBlocked = false;
                if (w == 0) ready.addFirst(qp);
                else ready.add(qp);
                break;
            }
            if (qp.pacingDeadline() != Long.MAX_VALUE) paced.add(qp);
            // did something (it may have more), or has a response due; anything else waits for a packet, a timer, a
            // post or its pacing deadline, each of which makes it ready again
            if (w > 0 || qp.responder.hasPendingWork()) ready.add(qp);
        }
        return work;
    }

    /** Application posts since the last pass make their QPs ready. */
    private void takePosted() {
        SoftQp qp;
        while ((qp = posted.poll()) != null) {
            qp.clearPostSignal(); // before the SQ is read: a post after this signals again
            if (!qp.destroyed) ready.add(qp);
        }
        if (sweep) {
            sweep = false;
            for (SoftQp q : qpsByNum.values()) {
                q.clearPostSignal();
                ready.add(q);
            }
        }
    }

    /** A QP's SQ producer moved (any thread). */
    void onPosted(SoftQp qp) {
        if (inlinePass != null) {
            // inline driving with the engine free: the posting thread queues the QP itself, as a pass would (one CAS
            // instead of the post signal's two swaps and the queue's offer and poll)
            if (engineThread == Thread.currentThread()) {
                activate(qp);
                return;
            }
            if (tryEnterEngine()) {
                try {
                    activate(qp);
                    java.util.function.LongSupplier clock = inlineClock;
                    if (clock != null) servePosted(clock.getAsLong());
                } finally {
                    exitEngine();
                }
                return;
            }
        }
        if (qp.raisePostSignal() && !posted.offer(qp)) sweep = true;
    }

    /**
     * Inline driving, engine claimed by the posting thread: what was posted leaves now, as rxe's post_send runs the
     * requester in the caller's context, instead of in the pass of the application's next CQ poll (which then finds a
     * UC/UD send's completion already there). The first part of an inline pass, and no pass of its own: a coalesced ACK
     * that was due leaves with the request, in one kernel send; arrivals and timers wait for the next pass.
     */
    private void servePosted(long now) {
        this.now = now;
        serveAndFlush(now);
    }

    /** What the application posted and the QPs that are due leave: paced QPs that may send again, then one flush. */
    private int serveAndFlush(long now) {
        wakePaced(now);
        int work = serveReady(now);
        return work + link.flush(now);
    }

    /** {@code qp} has something to do (engine thread). */
    void activate(SoftQp qp) {
        if (!qp.destroyed) ready.add(qp);
    }

    private void wakePaced(long now) {
        for (int i = paced.size() - 1; i >= 0; i--) {
            SoftQp qp = paced.get(i);
            long at = qp.pacingDeadline();
            if (at == Long.MAX_VALUE || qp.destroyed) {
                paced.remove(qp);
            } else if (at <= now) {
                paced.remove(qp);
                ready.add(qp);
            }
        }
    }

    /** Earliest ACK-timeout or RNR deadline; QPs without one leave the timed set. */
    private long earliestTimer() {
        long next = Long.MAX_VALUE;
        for (int i = timed.size() - 1; i >= 0; i--) {
            SoftQp qp = timed.get(i);
            long d = qp.nextDeadline();
            if (d == Long.MAX_VALUE) timed.remove(qp);
            else if (d < next) next = d;
        }
        return next;
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
        timerCheck = earliestTimer();
        return n;
    }

    private boolean onTimerExpiry(TimeUnit unit, long now, long timerId) {
        SoftQp qp = timerOwners.remove(timerId);
        if (qp != null) {
            qp.onTimer(timerId, now);
            activate(qp);
        }
        return true;
    }

    long scheduleTimer(SoftQp owner, long deadline) {
        long id = timers.scheduleTimer(deadline);
        if (deadline < timerCheck) timerCheck = deadline;
        timerOwners.put(id, owner);
        timed.add(owner);
        return id;
    }

    void cancelTimer(long id) {
        if (id != DeadlineTimerWheel.NULL_DEADLINE && timerOwners.remove(id) != null) timers.cancelTimer(id);
    }

    /** Earliest time this device has something to do (link arrival, timer, end of a QP's pacing), for a discrete-event driver. */
    public long nextEventTime() {
        long timer = earliestTimer();
        long pacedUntil = Long.MAX_VALUE;
        for (int i = 0; i < paced.size(); i++) pacedUntil = Math.min(pacedUntil, paced.get(i).pacingDeadline());
        if (timer != Long.MAX_VALUE && timer < Long.MAX_VALUE - TICK_NANOS) {
            timer += TICK_NANOS; // the wheel fires on the tick after the deadline
        }
        return Math.min(link.nextEventTime(), Math.min(timer, pacedUntil));
    }

    /** Whether any QP has work it could do right now without time passing. */
    public boolean hasPendingWork() {
        if (!posted.isEmpty() || sweep) return true;
        for (int i = 0; i < ready.size(); i++) {
            if (ready.get(i).hasPendingWork()) return true;
        }
        return false;
    }

    @Override
    public void onPacket(RxPacket p, long now) {
        int qpn = p.destQp();
        SoftQp qp = qpn == lastQpn ? lastQp : qpsByNum.get(qpn);
        if (qp != lastQp && qp != null) {
            lastQp = qp;
            lastQpn = qpn;
        }
        if (qp == null) {
            counters.increment(Counter.DROP_UNKNOWN_QP);
            journal.drop(now, p.destQp(), Counter.DROP_UNKNOWN_QP, p.psn());
            return;
        }
        if ((p.pkey() & 0x7FFF) != 0x7FFF) { // only the default partition exists on this port
            qp.drop(Counter.DROP_BAD_PKEY, p.psn(), now);
            return;
        }
        if (p.opcode() == Opcode.CNP) { // neither request nor response: to the rate control, past the CNP merge
            if (cnpMerge != null && !cnpMerge.admit(qp.qpNum(), now)) {
                qp.cnpsMerged++;
                counters.increment(Counter.CNP_MERGED);
                journal.cnpMerged(now, qp.qpNum(), 0);
                return;
            }
            qp.onCnp(now);
            return;
        }
        qp.onPacket(p, now);
        activate(qp);
    }

    @Override
    public void onMalformed(DecodeStatus why, long now) {
        Counter reason = why == DecodeStatus.BAD_ICRC ? Counter.DROP_BAD_ICRC : Counter.DROP_MALFORMED;
        counters.increment(reason);
        journal.drop(now, -1, reason, -1);
    }

    /** A frame slot for one packet, or null when the link pushes back (the caller tries again on a later pass). */
    TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        TxPacket t = link.claim(opcode, payloadLength, route, now);
        if (t == null) {
            txBackPressure++;
            servingBlocked = true;
        }
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
        inlinePass(pass, null);
    }

    /**
     * As {@link #inlinePass(Runnable)}, with the driver's clock ({@code pass}'s time source): a post that finds the
     * engine free then sends at once on the posting thread, at {@code clock}'s time (null: it waits for the next pass).
     */
    public void inlinePass(Runnable pass, java.util.function.LongSupplier clock) {
        inlineClock = pass == null ? null : clock;
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

    /**
     * {@link #nextEventTime()} for a thread that may not hold the engine (an idle strategy between inline passes, while
     * another thread polling a CQ runs one): read under the engine's claim, or {@code ifBusy} when another thread is in
     * a pass (the engine's sets are not safe to read beside it).
     */
    public long nextEventTimeOr(long ifBusy) {
        if (engineThread == Thread.currentThread()) return nextEventTime();
        if (!tryEnterEngine()) return ifBusy;
        try {
            return nextEventTime();
        } finally {
            exitEngine();
        }
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
        return createQp(pd, init, 0);
    }

    /**
     * The port's GSI: a UD QP numbered 1 (packets with DestQP 1 reach it like any QP's), for the CM's MADs. One per
     * device; its owner moves it to RTS with Q_Key 0x80010000 and posts its receives.
     */
    public QueuePair createGsiQp(ProtectionDomain pd, QpInitAttributes init) {
        if (!(pd instanceof SoftPd p) || p.device() != this) throw new IllegalArgumentException("pd: must be a PD of device " + config.name());
        if (init == null || init.type() != org.urdma.verbs.QpType.UD) throw new IllegalArgumentException("qp_type: the GSI QP is UD");
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
            int qpn = fixedQpn;
            if (qpn != 0 && qpsByNum.containsKey(qpn)) throw new IllegalStateException("qp: QP" + qpn + " exists already on " + config.name());
            while (qpn == 0 || qpsByNum.containsKey(qpn)) {
                qpn = nextQpn;
                nextQpn = (nextQpn + 1) & 0xFFFFFF;
                if (nextQpn < 2) nextQpn = 2; // QP0/QP1 are special
            }
            QpCounters c = counters.qp(qpn);
            SoftQp qp;
            try {
                qp = new SoftQp(this, pd, init, qpn, c);
            } catch (RuntimeException e) {
                counters.release(c);
                throw e;
            }
            qpsByNum.put(qpn, qp);
            return qp;
        });
    }

    void destroyQp(SoftQp qp) {
        control(() -> {
            qp.cancelTimers();
            if (qpsByNum.remove(qp.qpNum()) == qp) counters.release(qp.counters);
            if (lastQp == qp) {
                lastQp = null;
                lastQpn = -1;
            }
            qp.destroyed = true; // the ready queue drops it when it comes round
            timed.remove(qp);
            paced.remove(qp);
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
            for (SoftQp qp : qpsByNum.values()) qp.cancelTimers();
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

    /** QP visits so far (one per ready QP per pass): proportional to QPs with work, not to QPs that exist. */
    public long qpVisits() {
        return qpVisits;
    }

    /** QPs that exist on this device. */
    public int qpCount() {
        return qpsByNum.size();
    }

    /** Engine passes completed so far. */
    public long passes() {
        return passes;
    }

    public long rxUnknownQp() {
        return counters.get(Counter.DROP_UNKNOWN_QP);
    }

    /** Packets whose P_Key is not the default partition's (dropped). */
    public long rxBadPkey() {
        return counters.get(Counter.DROP_BAD_PKEY);
    }

    /** RC/UC packets whose source was not their QP's destination (dropped, never placed). */
    public long rxForeignSource() {
        return counters.get(Counter.DROP_FOREIGN_SOURCE);
    }

    /** Packets a QP dropped: its state or transport does not take them, or they came from another source than its peer. */
    public long rxDropped() {
        return counters.get(Counter.DROP_WRONG_STATE) + counters.get(Counter.DROP_BAD_OPCODE)
                + counters.get(Counter.DROP_FOREIGN_SOURCE);
    }

    /** Requests received CE-marked, over every QP (the {@code ecn_ce_rcvd} counter). */
    public long ceReceived() {
        return counters.get(Counter.ECN_CE_RCVD);
    }

    /** CNPs sent ({@code cnp_sent}), handed to rate controls ({@code cnp_handled}) and merged ({@code cnp_merged}). */
    public long cnpsSent() {
        return counters.get(Counter.CNP_SENT);
    }

    public long cnpsHandled() {
        return counters.get(Counter.CNP_HANDLED);
    }

    public long cnpsMerged() {
        return counters.get(Counter.CNP_MERGED);
    }
}
