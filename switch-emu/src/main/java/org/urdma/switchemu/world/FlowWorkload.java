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
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * A flow list run as RDMA: each flow is one RC WRITE of its size from its source host to its destination, posted at
 * its start time, finished when its completion arrives. QPs are pooled per host pair: a flow takes an idle QP of its
 * pair (one with no flow in progress, so flows never queue behind each other on a QP) or brings up a new one, and
 * gives it back when it completes; a run holds as many QPs as flows were ever in flight at once per pair, not one
 * per flow. Per flow it keeps a finish time and its QP (12 bytes); the source and sink regions of a host are one each
 * (pattern memory when the world describes payloads), every flow writing from and to their start.
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
    private final Long2ObjectHashMap<IntArrayList> idle = new Long2ObjectHashMap<>();
    private final List<QueuePair> qps = new ArrayList<>();
    private final List<QueuePair> peers = new ArrayList<>();
    private final long[] finishNs;
    private final int[] flowQp;
    /** Per flow: CE marks its receiver saw, CNPs its receiver sent, CNPs its sender's rate control heard (QP counters' change while it ran). */
    private final long[] ceMarked;
    private final long[] cnpsSent;
    private final long[] cnpsHandled;
    private final SendWorkRequest wr = new SendWorkRequest();
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
        finishNs = new long[flows.count()];
        flowQp = new int[flows.count()];
        ceMarked = new long[flows.count()];
        cnpsSent = new long[flows.count()];
        cnpsHandled = new long[flows.count()];
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
        long pair = (long) s << 32 | d;
        IntArrayList pool = idle.get(pair);
        int q = pool == null || pool.isEmpty() ? newQp(s, d) : pool.removeAt(pool.size() - 1);
        flowQp[flow] = q;
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
        ((SoftQp) a).policies(reliability, cc);
        ((SoftQp) b).policies(reliability, cc);
        int psnA = random.nextInt(1 << 24);
        int psnB = random.nextInt(1 << 24);
        MemoryFabric.bringUp(a, hosts[d].device(), b.qpNum(), psnB, psnA, connection);
        MemoryFabric.bringUp(b, hosts[s].device(), a.qpNum(), psnA, psnB, connection);
        qps.add(a);
        peers.add(b);
        return qps.size() - 1;
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
        long pair = (long) flowsList.src(flow) << 32 | flowsList.dst(flow);
        IntArrayList pool = idle.get(pair);
        if (pool == null) {
            pool = new IntArrayList();
            idle.put(pair, pool);
        }
        pool.addInt(flowQp[flow]);
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
        return peers.get(flowQp[i]).qpNum();
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
