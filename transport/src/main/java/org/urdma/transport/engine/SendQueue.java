package org.urdma.transport.engine;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.memory.SoftMw;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/**
 * The send queue: work queue entries in flat arrays (one slot per WQE), written by the posting thread and
 * read by the engine, like a NIC's SQ ring. {@code producer} is published by the poster, {@code retired} by
 * the engine when a WQE completes; the slot stays readable until then (for retransmission).
 */
final class SendQueue {
    final int size;
    final int mask;
    final int maxSge;
    final int maxInline;
    final long[] wrId;
    final int[] opcode;
    final int[] flags;
    final int[] numSge;
    final long[] sgeAddr;
    final int[] sgeLen;
    final int[] sgeLkey;
    final int[] length;
    final int[] immData;
    final int[] invalidateRkey;
    final long[] remoteAddr;
    final int[] rkey;
    final long[] compareAdd;
    final long[] swap;
    final SoftAh[] ah;
    final int[] remoteQpn;
    final int[] remoteQkey;
    /** A BIND_MW's window, region, range and rights (its new rkey rides in {@link #rkey}). */
    final SoftMw[] bindMw;
    final RegisteredMemory[] bindMr;
    final long[] bindLength;
    final int[] bindAccess;
    final UnsafeBuffer inline;
    private final UnsafeBuffer scratch = new UnsafeBuffer(0, 0);
    /** Regions the engine resolved for each SGE when the WQE started (engine-owned). */
    final RegisteredMemory[] sgeMr;
    // engine-owned per WQE
    final int[] firstPsn;
    final int[] packets;
    final AtomicLong producer = new AtomicLong();
    final AtomicLong retired = new AtomicLong();

    SendQueue(int requested, int maxSge, int maxInline) {
        int n = Integer.highestOneBit(Math.max(1, requested - 1)) << 1;
        size = Math.max(n, requested);
        mask = size - 1;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        wrId = new long[size];
        opcode = new int[size];
        flags = new int[size];
        numSge = new int[size];
        sgeAddr = new long[size * maxSge];
        sgeLen = new int[size * maxSge];
        sgeLkey = new int[size * maxSge];
        length = new int[size];
        immData = new int[size];
        invalidateRkey = new int[size];
        remoteAddr = new long[size];
        rkey = new int[size];
        compareAdd = new long[size];
        swap = new long[size];
        ah = new SoftAh[size];
        remoteQpn = new int[size];
        remoteQkey = new int[size];
        bindMw = new SoftMw[size];
        bindMr = new RegisteredMemory[size];
        bindLength = new long[size];
        bindAccess = new int[size];
        inline = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, size * maxInline)));
        sgeMr = new RegisteredMemory[size * maxSge];
        firstPsn = new int[size];
        packets = new int[size];
    }

    int slot(long index) {
        return (int) (index & mask);
    }

    boolean isInline(int slot) {
        return (flags[slot] & SendFlags.INLINE) != 0;
    }

    /** Copies a request into the next slot (poster thread); the caller has validated it. */
    void put(SendWorkRequest wr, int totalLength) {
        long p = producer.get();
        if (p - retired.get() >= size) {
            throw new IllegalStateException("sq: full, max_send_wr=" + size + " outstanding work requests");
        }
        int s = slot(p);
        wrId[s] = wr.wrId();
        opcode[s] = wr.opcode().ordinal();
        flags[s] = wr.flags();
        int n = wr.numSge();
        if ((wr.flags() & SendFlags.INLINE) != 0) {
            int off = s * maxInline;
            for (int i = 0; i < n; i++) {
                var e = wr.sge(i);
                scratch.wrap(e.addr(), e.length()); // inline: copied out of user memory at post time
                inline.putBytes(off, scratch, 0, e.length());
                off += e.length();
            }
            numSge[s] = 0;
        } else {
            numSge[s] = n;
            int base = s * maxSge;
            for (int i = 0; i < n; i++) Dma.store(wr.sge(i), sgeAddr, sgeLen, sgeLkey, base + i);
        }
        length[s] = totalLength;
        immData[s] = wr.immData();
        invalidateRkey[s] = wr.invalidateRkey();
        remoteAddr[s] = wr.remoteAddr();
        rkey[s] = wr.rkey();
        compareAdd[s] = wr.compareAdd();
        swap[s] = wr.swap();
        ah[s] = (SoftAh) wr.ah();
        remoteQpn[s] = wr.remoteQpn();
        remoteQkey[s] = wr.remoteQkey();
        if (wr.opcode() == WrOpcode.BIND_MW) { // checked by SendChecks: a window and region of this device
            bindMw[s] = (SoftMw) wr.bindMwWindow();
            bindMr[s] = (RegisteredMemory) wr.bindMr();
            remoteAddr[s] = wr.bindAddr();
            rkey[s] = wr.bindRkey();
            bindLength[s] = wr.bindLength();
            bindAccess[s] = wr.bindAccess();
        } else {
            bindMw[s] = null;
            bindMr[s] = null;
        }
        producer.lazySet(p + 1);
    }
}
