package org.urdma.transport.engine;

import java.util.concurrent.atomic.AtomicLong;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * A completion queue: a single-producer (engine) single-consumer (application) ring of completions in
 * flat arrays. Poll copies into the caller's holders; nothing is allocated.
 */
public final class SoftCq implements CompletionQueue {
    private static final int NOTIFY_NEXT = 1, NOTIFY_SOLICITED = 2; // 0: not armed
    private static final int ARM_BITS = 2;
    private static final long ARM_MASK = (1L << ARM_BITS) - 1;
    private static final long ONE = 1L << ARM_BITS;
    private static final WcStatus[] STATUS = WcStatus.values();
    private static final WcOpcode[] OPCODE = WcOpcode.values();

    private final SoftDevice device;
    private final SoftChannel channel;
    private final int size;
    private final int mask;
    private final long[] wrId;
    private final int[] status;
    private final int[] opcode;
    private final int[] byteLen;
    private final int[] imm;
    private final int[] invRkey;
    private final int[] qpNum;
    private final int[] srcQp;
    private final int[] flags;
    /**
     * Completions pushed, shifted left by {@link #ARM_BITS}, and the consumer's arm in the low bits: one word, so the
     * producer publishes a completion and reads (and clears) the arm in one atomic step. With the count and the arm in
     * two words a push could read the arm before its publish was visible while the consumer, having armed, polled an
     * empty queue: neither saw the other and the consumer slept on a completion.
     */
    private final AtomicLong tailAndArm = new AtomicLong();
    private final AtomicLong head = new AtomicLong();
    /** Runs between a push's read of the word and its atomic publish; null outside interleaving tests. */
    Runnable beforePublish;
    private long overruns;

    SoftCq(SoftDevice device, int entries, SoftChannel channel) {
        this.device = device;
        this.channel = channel;
        int n = Integer.highestOneBit(Math.max(1, entries - 1)) << 1;
        size = Math.max(n, entries);
        mask = size - 1;
        wrId = new long[size];
        status = new int[size];
        opcode = new int[size];
        byteLen = new int[size];
        imm = new int[size];
        invRkey = new int[size];
        qpNum = new int[size];
        srcQp = new int[size];
        flags = new int[size];
    }

    /** Engine: adds a completion; counts an overrun and drops it when full. */
    void push(long id, WcStatus st, WcOpcode op, int len, int immData, int inv, int qp, int src, int fl, boolean solicited) {
        long t = tailAndArm.get() >>> ARM_BITS; // the producer alone moves the count
        if (t - head.get() >= size) {
            if (overruns++ == 0) device.raise(org.urdma.verbs.AsyncEventType.CQ_ERR, this); // as ibv: CQ overrun
            return;
        }
        int s = (int) (t & mask);
        wrId[s] = id;
        status[s] = st.ordinal();
        opcode[s] = op.ordinal();
        byteLen[s] = len;
        imm[s] = immData;
        invRkey[s] = inv;
        qpNum[s] = qp;
        srcQp[s] = src;
        flags[s] = fl;
        boolean fires = publish(solicited || st != WcStatus.SUCCESS);
        device.completed();
        if (fires) channel.signal(this);
    }

    /**
     * Publishes the completion just written and disarms the CQ when it fires on it, in one compare-and-set (it fails
     * only when the consumer armed meanwhile, and the retry sees that arm). True when the channel must be signalled.
     * A CQ without a channel is polled only, so nothing orders its publish against an arm.
     */
    private boolean publish(boolean solicitedOrError) {
        if (channel == null) { // never armed (requestNotify refuses): an ordered store, no fence, publishes
            tailAndArm.lazySet(tailAndArm.get() + ONE);
            return false;
        }
        while (true) {
            long word = tailAndArm.get();
            boolean fires = firesOn((int) (word & ARM_MASK), solicitedOrError);
            long next = (fires ? word & ~ARM_MASK : word) + ONE;
            Runnable seam = beforePublish;
            if (seam != null) seam.run();
            if (tailAndArm.compareAndSet(word, next)) return fires;
        }
    }

    /** ibv_req_notify_cq: NEXT fires on any completion, SOLICITED on a solicited one or an error. */
    private static boolean firesOn(int arm, boolean solicitedOrError) {
        return arm == NOTIFY_NEXT || arm == NOTIFY_SOLICITED && solicitedOrError;
    }

    @Override
    public int capacity() {
        return size;
    }

    @Override
    public int poll(WorkCompletion[] wcs) {
        return poll(wcs, wcs.length);
    }

    @Override
    public int poll(WorkCompletion[] wcs, int max) {
        long h = head.get();
        long avail = tail() - h;
        if (avail == 0) { // like ibv_poll_cq: what is already there is returned at once; the engine runs only when the CQ is empty
            device.invokeInline();
            avail = tail() - h;
        }
        int n = (int) Math.min(avail, Math.min(max, wcs.length));
        for (int i = 0; i < n; i++) {
            int s = (int) ((h + i) & mask);
            WorkCompletion wc = wcs[i];
            wc.wrId = wrId[s];
            wc.status = STATUS[status[s]];
            wc.opcode = OPCODE[opcode[s]];
            wc.byteLen = byteLen[s];
            wc.immData = imm[s];
            wc.invalidatedRkey = invRkey[s];
            wc.qpNum = qpNum[s];
            wc.srcQp = srcQp[s];
            wc.flags = flags[s];
            wc.vendorErr = 0;
        }
        if (n > 0) head.lazySet(h + n);
        return n;
    }

    /** Completions waiting to be polled. */
    public int pending() {
        return (int) (tail() - head.get());
    }

    private long tail() {
        return tailAndArm.get() >>> ARM_BITS;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) throw new IllegalStateException("cq: has no completion channel to notify");
        long arm = solicitedOnly ? NOTIFY_SOLICITED : NOTIFY_NEXT;
        while (true) {
            long word = tailAndArm.get();
            if (tailAndArm.compareAndSet(word, word & ~ARM_MASK | arm)) return;
        }
    }

    @Override
    public long overruns() {
        return overruns;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public void close() {
        // Nothing to release: the arrays go with the object.
    }

    SoftDevice device() {
        return device;
    }
}
