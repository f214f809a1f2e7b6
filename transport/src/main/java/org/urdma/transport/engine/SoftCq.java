package org.urdma.transport.engine;

import java.util.concurrent.atomic.AtomicInteger;
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
    private static final int NOTIFY_NONE = 0, NOTIFY_NEXT = 1, NOTIFY_SOLICITED = 2;
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
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();
    private final AtomicInteger notify = new AtomicInteger();
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
        long t = tail.get();
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
        tail.lazySet(t + 1);
        device.completed();
        int mode = notify.get();
        if (mode != NOTIFY_NONE && (mode == NOTIFY_NEXT || solicited || st != WcStatus.SUCCESS)
                && notify.compareAndSet(mode, NOTIFY_NONE) && channel != null) {
            channel.signal(this);
        }
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
        long avail = tail.get() - h;
        if (avail == 0) { // like ibv_poll_cq: what is already there is returned at once; the engine runs only when the CQ is empty
            device.invokeInline();
            avail = tail.get() - h;
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
        return (int) (tail.get() - head.get());
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) throw new IllegalStateException("cq: has no completion channel to notify");
        notify.set(solicitedOnly ? NOTIFY_SOLICITED : NOTIFY_NEXT);
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
