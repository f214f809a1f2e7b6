package org.urdma.transport.engine;

import org.agrona.DirectBuffer;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.packet.Payloads;
import org.urdma.transport.packet.TxPacket;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.ScatterGatherEntry;

/** Copies between packets and scatter/gather lists, checking every local key before a byte moves. */
final class Dma {
    static final int OK = 0, PROTECTION = 1, LENGTH = 2;

    private Dma() {}

    /** Copies a posted SGE into slot {@code at} of a queue's three parallel SGE arrays (posting time, not placement). */
    static void store(ScatterGatherEntry e, long[] addr, int[] len, int[] lkey, int at) {
        addr[at] = e.addr();
        len[at] = e.length();
        lkey[at] = e.lkey();
    }

    /**
     * Writes {@code length} bytes from {@code src} (a packet's payload at {@code srcOff}, placed by {@code how}) into
     * the SGE list at byte {@code offset} of the list.
     * Returns OK, PROTECTION (bad lkey/rights/bounds) or LENGTH (the list is too short).
     */
    static int scatter(MemoryKeyTable keys, SoftPd pd, long[] addr, int[] len, int[] lkey, int base, int n,
                       long offset, Payloads how, DirectBuffer src, int srcOff, int length) {
        if (length == 0) return OK;
        int i = 0;
        long pos = 0;
        while (i < n && pos + len[base + i] <= offset) {
            pos += len[base + i];
            i++;
        }
        int done = 0;
        while (done < length) {
            if (i >= n) return LENGTH;
            long within = offset + done - pos;
            int chunk = (int) Math.min(length - done, len[base + i] - within);
            long va = addr[base + i] + within;
            RegisteredMemory mr = keys.local(lkey[base + i], pd, va, chunk, AccessFlags.LOCAL_WRITE);
            if (mr == null) return PROTECTION;
            how.get(src, srcOff, done, mr.buffer(), mr.offsetOf(va), chunk);
            done += chunk;
            pos += len[base + i];
            i++;
        }
        return OK;
    }

    /** Copies {@code len} payload bytes at {@code offset} of WQE slot {@code s} from its SGEs (or inline data) into the frame. */
    static void gather(SendQueue sq, int s, int offset, int len, TxPacket t) {
        if (len == 0) return;
        if (sq.isInline(s)) {
            t.payload(sq.inline, s * sq.maxInline + offset, len);
            return;
        }
        int base = s * sq.maxSge;
        int n = sq.numSge[s];
        int i = 0;
        long pos = 0;
        while (i < n && pos + sq.sgeLen[base + i] <= offset) {
            pos += sq.sgeLen[base + i];
            i++;
        }
        long within = offset - pos;
        int done = 0;
        while (done < len) {
            int chunk = (int) Math.min(len - done, sq.sgeLen[base + i] - within);
            RegisteredMemory mr = sq.sgeMr[base + i];
            t.payload(mr.buffer(), mr.offsetOf(sq.sgeAddr[base + i] + within), chunk);
            done += chunk;
            i++;
            within = 0;
        }
    }

    static long total(int[] len, int base, int n) {
        long t = 0;
        for (int i = 0; i < n; i++) t += len[base + i];
        return t;
    }
}
