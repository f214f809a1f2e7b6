package org.urdma.switchemu.world;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.urdma.transport.cm.WanOffer;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftPd;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * A perftest-like stream of {@code size}-byte WRITE, READ or SEND messages from one device to another over a QP
 * pair of its own, with {@code depth} outstanding: an open loop until {@code stopNs}, or a closed loop of
 * {@code messages}. Message i moves slot {@code i % slots} of a seeded pattern buffer to the same slot at the
 * other end, so when it finishes the destination must equal the source (checked by {@link #verify}).
 */
public final class MessageWorkload implements Workload {
    /** Which verb each message is. */
    public enum Op {
        WRITE, READ, SEND;

        public static Op named(String s) {
            return switch (s.toLowerCase(java.util.Locale.ROOT).replace("-bw", "")) {
                case "write" -> WRITE;
                case "read" -> READ;
                case "send" -> SEND;
                default -> throw new IllegalArgumentException("kind: unknown '" + s + "', expected write-bw, read-bw or send-bw");
            };
        }
    }

    private final String name;
    private final DeviceHost from;
    private final DeviceHost to;
    private final Op op;
    private final int size;
    private final int depth;
    /**
     * Buffer slots: one per outstanding message, at most what fits one memory region (2 GiB); past that, messages in
     * flight share slots, harmless as every message to a slot carries the same bytes (a deep WAN pipe: 4 GB in flight).
     */
    private final int slots;
    private final long messages;
    private final long stopNs;
    private final QueuePair qp;
    private final QueuePair peer;
    private final CompletionQueue cq;
    private final CompletionQueue peerCq;
    private final MemoryRegion local;
    private final MemoryRegion remote;
    /** Where the bytes come from and where they must end up. */
    private final MemorySegment source;
    private final MemorySegment sink;
    /** Pattern memory the regions live in when the world describes payloads, else null (real bytes). */
    private final PatternMemory patterns;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final ReceiveWorkRequest recv = new ReceiveWorkRequest();
    private final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion()};
    private long posted;
    private long completed;
    private long recvPosted;
    private long errors;
    private long startNs = -1;
    private long lastNs;
    /** Posting has stopped for good (stop time passed). */
    private boolean stopped;

    public MessageWorkload(World world, String name, DeviceHost from, DeviceHost to, Op op, QpType type, int size,
                           int depth, long messages, long stopNs, LossRecovery.Factory reliability, RateControl.Factory cc,
                           MemoryFabric.Connection connection, long seed) {
        this(world, name, from, to, op, type, size, depth, messages, stopNs, reliability, cc, WanOffer.NONE, connection, seed);
    }

    /**
     * As above, both QPs in the WAN mode {@code wan} (UETH flags and FEC group) before RTR, as {@code QpConnector}
     * applies an agreed offer; the given reliability and rate control stay (SACK in the flags selects {@code sack}, or
     * the selective reliability given, e.g. {@code sack:N/T}).
     */
    public MessageWorkload(World world, String name, DeviceHost from, DeviceHost to, Op op, QpType type, int size,
                           int depth, long messages, long stopNs, LossRecovery.Factory reliability, RateControl.Factory cc,
                           WanOffer wan, MemoryFabric.Connection connection, long seed) {
        if (size < 1) throw new IllegalArgumentException("size: must be >= 1 byte, was " + size);
        if (depth < 1) throw new IllegalArgumentException("depth: must be >= 1, was " + depth);
        if (messages <= 0 && stopNs == Long.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": give messages or stop, or it never ends");
        }
        if (type == QpType.UD) throw new IllegalArgumentException("qp: " + name + " needs rc or uc");
        if (type == QpType.UC && op == Op.READ) throw new IllegalArgumentException("qp: " + name + ": uc has no READ");
        this.name = name;
        this.from = from;
        this.to = to;
        this.op = op;
        this.size = size;
        this.depth = depth;
        this.slots = (int) Math.min(depth, (Integer.MAX_VALUE - 4096L) / size);
        this.messages = messages;
        this.stopNs = stopNs;
        ProtectionDomain pdA = from.device().allocPd();
        ProtectionDomain pdB = to.device().allocPd();
        cq = from.device().createCq(depth * 2 + 16, null);
        peerCq = to.device().createCq(depth * 2 + 16, null);
        qp = pdA.createQp(MemoryFabric.init(type, cq, depth));
        peer = pdB.createQp(MemoryFabric.init(type, peerCq, depth));
        ((SoftQp) qp).policies(reliability, cc);
        ((SoftQp) peer).policies(reliability, cc);
        if (wan.on()) {
            if (type != QpType.RC) throw new IllegalArgumentException("qp: " + name + ": WAN mode is RC only");
            ((SoftQp) qp).wan(wan.uethFlags(), wan.fecData(), wan.fecParity());
            ((SoftQp) peer).wan(wan.uethFlags(), wan.fecData(), wan.fecParity());
            if (reliability.create().selective()) { // wan() chose the default sack: a tuned one (sack:N/T) stays
                ((SoftQp) qp).policies(reliability, cc);
                ((SoftQp) peer).policies(reliability, cc);
            }
        }
        SplittableRandom r = new SplittableRandom(seed);
        int psnA = r.nextInt(1 << 24);
        int psnB = r.nextInt(1 << 24);
        MemoryFabric.bringUp(qp, to.device(), peer.qpNum(), psnB, psnA, connection);
        MemoryFabric.bringUp(peer, from.device(), qp.qpNum(), psnA, psnB, connection);
        long bytes = (long) size * slots;
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
        patterns = world.patterns();
        int pattern = patterns == null ? 0 : 1 + r.nextInt(Integer.MAX_VALUE - 1); // both ends: the sink must match
        MemorySegment a = patterns != null ? patterns.allocate(bytes, pattern) : world.arena.allocate(bytes, 64);
        MemorySegment b = patterns != null ? patterns.allocate(bytes, pattern) : world.arena.allocate(bytes, 64);
        // addresses from the world, not the allocator, so RETHs are the same bytes in every run
        local = ((SoftPd) pdA).registerMemory(a, access, world.virtualAddress(bytes));
        remote = ((SoftPd) pdB).registerMemory(b, access, world.virtualAddress(bytes));
        source = op == Op.READ ? b : a;
        sink = op == Op.READ ? a : b;
        if (patterns == null) {
            for (long i = 0; i + 8 <= bytes; i += 8) source.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
            for (long i = bytes & ~7L; i < bytes; i++) source.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    @Override
    public void start(long now) {
        startNs = now;
        lastNs = now;
        post(now);
    }

    private boolean post(long now) {
        boolean any = false;
        if (op == Op.SEND) {
            while (recvPosted < completed + depth && (messages <= 0 || recvPosted < messages)) {
                long slot = recvPosted % slots;
                peer.postRecv(recv.reset().wrId(recvPosted).addSge(remote, slot * size, size));
                recvPosted++;
            }
        }
        if (now >= stopNs || errors > 0) stopped = true; // an errored QP only flushes what is posted
        while (!stopped && posted - completed < depth && (messages <= 0 || posted < messages)) {
            long slot = posted % slots;
            wr.reset().wrId(posted).flags(SendFlags.SIGNALED).addSge(local, slot * size, size);
            switch (op) {
                case WRITE -> wr.opcode(WrOpcode.RDMA_WRITE).remote(remote.address() + slot * size, remote.rkey());
                case READ -> wr.opcode(WrOpcode.RDMA_READ).remote(remote.address() + slot * size, remote.rkey());
                case SEND -> wr.opcode(WrOpcode.SEND);
            }
            qp.postSend(wr);
            posted++;
            any = true;
        }
        return any;
    }

    @Override
    public boolean poll(long now) {
        if (startNs < 0) return false;
        int n;
        while ((n = cq.poll(wc)) > 0) {
            for (int i = 0; i < n; i++) {
                if (wc[i].status != WcStatus.SUCCESS) errors++;
                completed++;
                lastNs = now;
            }
        }
        while (peerCq.poll(wc) > 0) {
            // the receiver's completions (SEND) only free receive slots; post() tops them up
        }
        return post(now);
    }

    @Override
    public boolean finished() {
        return startNs >= 0 && completed == posted && (errors > 0 || stopped || (messages > 0 && posted >= messages));
    }

    /** Whether the destination holds the source in every slot a completed message wrote. */
    public boolean verify() {
        long n = Math.min(completed, slots) * (long) size;
        if (errors != 0 || completed == 0) return false;
        // described: every byte placed, each with the source's content at that offset (pattern memory checks it)
        return patterns != null ? patterns.verify(sink, 0, n) : source.asSlice(0, n).mismatch(sink.asSlice(0, n)) == -1;
    }

    @Override
    public FlowResult result() {
        return new FlowResult(name, from.name(), to.name(), op.name().toLowerCase(java.util.Locale.ROOT),
                ((SoftQp) qp).stats().policyNames(), completed - errors, (completed - errors) * size, Math.max(startNs, 0),
                lastNs, errors, ((SoftQp) qp).stats().get(Counter.RETRANSMITTED_PKTS), finished() ? verify() : null);
    }

    public QueuePair qp() {
        return qp;
    }

    /** The QP at the other end (on the destination device). */
    public QueuePair peerQp() {
        return peer;
    }

    /** The receiving end's QP (its responder counts what it placed, rebuilt and acknowledged). */
    public QueuePair peer() {
        return peer;
    }

    /** Messages completed successfully so far. */
    public long succeeded() {
        return completed - errors;
    }
}
