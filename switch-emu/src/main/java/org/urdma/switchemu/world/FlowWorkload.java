package org.urdma.switchemu.world;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Long2ObjectHashMap;
import org.urdma.switchemu.world.fct.Flows;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftPd;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * A flow list run as RDMA: each flow is one RC WRITE of its size from its source host to its destination, posted at
 * its start time, finished when its completion arrives. QPs are pooled: a flow takes an idle QP pair of its host
 * pair (one with no flow in progress, so flows never queue behind each other on a QP); failing that, an idle requester
 * on its source and an idle responder on its destination trade partners with each other (their four QPs reset and
 * brought up again, as a NIC driver reuses QPs), and only when a host has no idle QP is a new pair brought up. A run
 * thus holds about as many QP pairs per host as it ever had flows in flight there at once, however many host pairs
 * it touches. Per flow it keeps a finish time, its QP pair and the destination QPN it used (16 bytes); the source and
 * sink regions of a host are one each (pattern memory when the world describes payloads), every flow writing from
 * and to their start.
 */
public final class FlowWorkload {
    /** Flows of a host that have not started yet, the first at {@link #next}. */
    private final class Sender implements Workload {
        private final int host;
        private final int[] flows;
        private int next;
        private long wakeAt = Long.MIN_VALUE;
        private final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
            new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

        Sender(int host, int[] flows) {
            this.host = host;
            this.flows = flows;
        }

        @Override
        public void start(long now) {
            post(now);
        }

        @Override
        public boolean poll(long now) {
            int n;
            while ((n = cq[host].poll(wc)) > 0) {
                for (int i = 0; i < n; i++) complete((int) wc[i].wrId, wc[i].status, now);
            }
            while (rcq[host].poll(wc) > 0) {
                // a WRITE completes nothing at its target; a flushed receive side would land here
            }
            return post(now);
        }

        private boolean post(long now) {
            boolean any = false;
            while (next < flows.length && flows.length > 0 && flowsList.startNs(flows[next]) <= now) {
                startFlow(flows[next++], now);
                any = true;
            }
            if (next < flows.length) {
                long t = flowsList.startNs(flows[next]);
                if (t != wakeAt) {
                    wakeAt = t;
                    world.wake(hosts[host], t);
                }
            }
            return any;
        }

        @Override
        public boolean finished() {
            return next == flows.length && completed + failed == flowsList.count();
        }

        @Override
        public FlowResult result() {
            return new FlowResult("flows@" + hosts[host].name(), hosts[host].name(), "*", "write", "", completed, 0, 0, 0,
                    failed, 0, null);
        }
    }

    private final World world;
    private final DeviceHost[] hosts;
    private final Flows flowsList;
    private final RateControl.Factory cc;
    private final LossRecovery.Factory reliability;
    private final MemoryFabric.Connection connection;
    private final SplittableRandom random;
    private final ProtectionDomain[] pd;
    private final CompletionQueue[] cq;
    private final CompletionQueue[] rcq;
    private final MemoryRegion[] source;
    private final MemoryRegion[] sink;
    /** Idle QP pairs per host pair, and per source and destination host (entries go stale; {@link #idleAs} checks). */
    private final Long2ObjectHashMap<IntArrayList> idle = new Long2ObjectHashMap<>();
    private final IntArrayList[] idleFrom;
    private final IntArrayList[] idleTo;
    private final List<QueuePair> qps = new ArrayList<>();
    private final List<QueuePair> peers = new ArrayList<>();
    /** Per QP pair: its hosts and whether it is idle. */
    private final IntArrayList pairSrc = new IntArrayList();
    private final IntArrayList pairDst = new IntArrayList();
    private boolean[] pairIdle = new boolean[64];
    private final long[] finishNs;
    private final int[] flowQp;
    /** Per flow: CE marks its receiver saw, CNPs its receiver sent, CNPs its sender's rate control heard (QP counters' change while it ran). */
    private final long[] ceMarked;
    private final long[] cnpsSent;
    private final long[] cnpsHandled;
    private final int[] flowDestQpn;
    private int reconnects;
    private final SendWorkRequest wr = new SendWorkRequest();
    private static final QpAttributes RESET = new QpAttributes().state(QpState.RESET);
    private int completed;
    private int failed;
    private int inFlight;
    private int inFlightHighWater;

    /**
     * Runs {@code flows} between {@code hosts} (flow host numbers index it) in {@code world}, each QP with
     * {@code reliability} and {@code cc}, brought up with {@code connection}; {@code seed} sets the PSNs.
     */
    public FlowWorkload(World world, DeviceHost[] hosts, Flows flows, LossRecovery.Factory reliability, RateControl.Factory cc,
                        MemoryFabric.Connection connection, long seed) {
        this.world = world;
        this.hosts = hosts.clone();
        this.flowsList = flows;
        this.reliability = reliability;
        this.cc = cc;
        this.connection = connection;
        this.random = new SplittableRandom(seed);
        int n = hosts.length;
        pd = new ProtectionDomain[n];
        cq = new CompletionQueue[n];
        rcq = new CompletionQueue[n];
        source = new MemoryRegion[n];
        sink = new MemoryRegion[n];
        long[] out = new long[n];
        long[] in = new long[n];
        int[] count = new int[n];
        for (int i = 0; i < flows.count(); i++) {
            int s = flows.src(i);
            int d = flows.dst(i);
            if (s < 0 || s >= n || d < 0 || d >= n) {
                throw new IllegalArgumentException("flow " + i + ": host " + (s < 0 || s >= n ? s : d) + " is not one of the "
                        + n + " hosts");
            }
            out[s] = Math.max(out[s], flows.size(i));
            in[d] = Math.max(in[d], flows.size(i));
            count[s]++;
        }
        PatternMemory patterns = world.patterns();
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        for (int h = 0; h < n; h++) {
            pd[h] = hosts[h].device().allocPd();
            // a host's completions in flight are at most its flows (a CQ entry costs ~44 bytes: 320 hosts of 64 K would be 1 GB)
            cq[h] = hosts[h].device().createCq(Math.min(65_536, Math.max(16, count[h])), null);
            rcq[h] = hosts[h].device().createCq(16, null);
            source[h] = region(h, out[h], patterns, access);
            sink[h] = region(h, in[h], patterns, access);
        }
        idleFrom = new IntArrayList[n];
        idleTo = new IntArrayList[n];
        for (int h = 0; h < n; h++) {
            idleFrom[h] = new IntArrayList();
            idleTo[h] = new IntArrayList();
        }
        finishNs = new long[flows.count()];
        flowQp = new int[flows.count()];
        ceMarked = new long[flows.count()];
        cnpsSent = new long[flows.count()];
        cnpsHandled = new long[flows.count()];
        flowDestQpn = new int[flows.count()];
        Arrays.fill(finishNs, -1);
        int[][] byHost = new int[n][];
        for (int h = 0; h < n; h++) byHost[h] = new int[count[h]];
        int[] fill = new int[n];
        for (int i = 0; i < flows.count(); i++) byHost[flows.src(i)][fill[flows.src(i)]++] = i;
        for (int h = 0; h < n; h++) {
            if (byHost[h].length == 0) continue;
            Sender s = new Sender(h, byHost[h]);
            world.add(hosts[h], s, flows.startNs(byHost[h][0]));
        }
    }

    private MemoryRegion region(int h, long bytes, PatternMemory patterns, int access) {
        long b = Math.max(4096, bytes);
        // one pattern everywhere: a described WRITE from source offset o lands as the same content at sink offset o
        MemorySegment m = patterns != null ? patterns.allocate(b, 1) : world.arena.allocate(b, 64);
        return ((SoftPd) pd[h]).registerMemory(m, access, world.virtualAddress(b));
    }

    private void startFlow(int flow, long now) {
        int s = flowsList.src(flow);
        int d = flowsList.dst(flow);
        int q = takeIdle(idle.get((long) s << 32 | d), s, d);
        if (q < 0) q = trade(s, d);
        if (q < 0) q = newQp(s, d);
        pairIdle[q] = false;
        flowQp[flow] = q;
        flowDestQpn[flow] = peers.get(q).qpNum();
        ecn(flow, -1);
        inFlight++;
        inFlightHighWater = Math.max(inFlightHighWater, inFlight);
        long size = flowsList.size(flow);
        wr.reset().wrId(flow).flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE).addSge(source[s], 0, (int) size)
                .remote(sink[d].address(), sink[d].rkey());
        qps.get(q).postSend(wr);
    }

    private int newQp(int s, int d) {
        QueuePair a = pd[s].createQp(MemoryFabric.init(QpType.RC, cq[s], 2));
        QueuePair b = pd[d].createQp(MemoryFabric.init(QpType.RC, rcq[d], 2));
        connect(a, s, b, d);
        qps.add(a);
        peers.add(b);
        pairSrc.addInt(s);
        pairDst.addInt(d);
        if (qps.size() > pairIdle.length) pairIdle = Arrays.copyOf(pairIdle, pairIdle.length * 2);
        return qps.size() - 1;
    }

    /** Brings requester {@code a} on host {@code s} and responder {@code b} on host {@code d} up to each other. */
    private void connect(QueuePair a, int s, QueuePair b, int d) {
        ((SoftQp) a).policies(reliability, cc);
        ((SoftQp) b).policies(reliability, cc);
        int psnA = random.nextInt(1 << 24);
        int psnB = random.nextInt(1 << 24);
        MemoryFabric.bringUp(a, hosts[d].device(), b.qpNum(), psnB, psnA, connection);
        MemoryFabric.bringUp(b, hosts[s].device(), a.qpNum(), psnA, psnB, connection);
    }

    /** Whether QP pair {@code q} is idle and (when {@code s}/{@code d} ≥ 0) between those hosts. */
    private boolean idleAs(int q, int s, int d) {
        return pairIdle[q] && (s < 0 || pairSrc.getInt(q) == s) && (d < 0 || pairDst.getInt(q) == d);
    }

    /** Pops the last valid idle pair of {@code list} (dropping stale entries on the way), or -1. */
    private int takeIdle(IntArrayList list, int s, int d) {
        while (list != null && !list.isEmpty()) {
            int q = list.removeAt(list.size() - 1);
            if (idleAs(q, s, d)) return q;
        }
        return -1;
    }

    /** The last valid idle pair of {@code list} other than {@code not}, left in place (stale ones dropped), or -1. */
    private int peekIdle(IntArrayList list, int s, int d, int not) {
        for (int i = list.size() - 1; i >= 0; i--) {
            int q = list.getInt(i);
            if (q != not && idleAs(q, s, d)) return q;
            if (!idleAs(q, s, d)) list.removeAt(i);
        }
        return -1;
    }

    /**
     * An idle pair q from {@code s} (to some d') and an idle pair r (from some s') to {@code d} trade partners: q's
     * requester with r's responder becomes s→d (returned, for the flow), r's requester with q's responder s'→d' (idle).
     * -1 when either host has no idle pair.
     */
    private int trade(int s, int d) {
        int q = peekIdle(idleFrom[s], s, -1, -1);
        if (q < 0) return -1;
        int r = peekIdle(idleTo[d], -1, d, q);
        if (r < 0) return -1;
        int s2 = pairSrc.getInt(r);
        int d2 = pairDst.getInt(q);
        QueuePair reqQ = qps.get(q);
        QueuePair resQ = peers.get(q);
        QueuePair reqR = qps.get(r);
        QueuePair resR = peers.get(r);
        for (QueuePair x : new QueuePair[] {reqQ, resQ, reqR, resR}) x.modify(RESET, QpAttrMask.STATE);
        connect(reqQ, s, resR, d);
        connect(reqR, s2, resQ, d2);
        peers.set(q, resR);
        peers.set(r, resQ);
        pairDst.setInt(q, d);
        pairSrc.setInt(r, s2);
        pairDst.setInt(r, d2);
        reconnects += 2;
        pairIdle[q] = false;
        giveBack(r);
        return q;
    }

    private void giveBack(int q) {
        int s = pairSrc.getInt(q);
        int d = pairDst.getInt(q);
        pairIdle[q] = true;
        long pair = (long) s << 32 | d;
        IntArrayList pool = idle.get(pair);
        if (pool == null) {
            pool = new IntArrayList();
            idle.put(pair, pool);
        }
        pool.addInt(q);
        idleFrom[s].addInt(q);
        idleTo[d].addInt(q);
    }

    private void complete(int flow, WcStatus status, long now) {
        inFlight--;
        if (status != WcStatus.SUCCESS) {
            failed++; // the QP is in error: it is not given back
            return;
        }
        finishNs[flow] = now;
        ecn(flow, 1);
        completed++;
        giveBack(flowQp[flow]);
    }

    /** Adds {@code sign} × the flow's QP counters: -1 at its start, +1 at its end, leaving what changed while it ran. */
    private void ecn(int flow, int sign) {
        QpCounters receiver = ((SoftQp) peers.get(flowQp[flow])).counters();
        QpCounters sender = ((SoftQp) qps.get(flowQp[flow])).counters();
        ceMarked[flow] += sign * receiver.get(Counter.ECN_CE_RCVD);
        cnpsSent[flow] += sign * receiver.get(Counter.CNP_SENT);
        cnpsHandled[flow] += sign * sender.get(Counter.CNP_HANDLED);
    }

    /** CE-marked packets flow {@code i}'s receiver got while it ran (0 until it completes). */
    public long ceMarked(int i) {
        return finishNs[i] < 0 ? 0 : ceMarked[i];
    }

    /** CNPs flow {@code i}'s receiver sent while it ran (0 until it completes). */
    public long cnpsSent(int i) {
        return finishNs[i] < 0 ? 0 : cnpsSent[i];
    }

    /** CNPs flow {@code i}'s sender's rate control heard while it ran (0 until it completes). */
    public long cnpsHandled(int i) {
        return finishNs[i] < 0 ? 0 : cnpsHandled[i];
    }

    public Flows flows() {
        return flowsList;
    }

    /** When flow {@code i} completed, or -1 if it has not (or failed). */
    public long finishNs(int i) {
        return finishNs[i];
    }

    /** The QP number flow {@code i} was sent on (its destination QP sets the RoCEv2 UDP source port). */
    public int destQpn(int i) {
        return flowDestQpn[i];
    }

    /** QP pairs brought up again between other hosts (each trade re-pairs two). */
    public int reconnects() {
        return reconnects;
    }

    public int completed() {
        return completed;
    }

    public int failed() {
        return failed;
    }

    /** Whether every flow has completed or failed. */
    public boolean done() {
        return completed + failed == flowsList.count();
    }

    /** QP pairs brought up (the pool's size at the end). */
    public int queuePairs() {
        return qps.size();
    }

    /** Most flows in flight at once. */
    public int inFlightHighWater() {
        return inFlightHighWater;
    }
}
