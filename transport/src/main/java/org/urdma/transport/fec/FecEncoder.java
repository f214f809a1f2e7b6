package org.urdma.transport.fec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.FecEth;
import org.urdma.transport.wire.Psn;

/**
 * P-FEC sender side (seed 001 §2.2.3, WIRE.md §10): a group is m consecutive data packets from a base PSN; data
 * packet i of the group is XORed into parity i mod r as it is sent (nothing is kept but the r running XORs), and its
 * length into that parity's 2-byte length XOR. When the m-th packet is added the r parity payloads are ready: each is
 * as long as the longest packet of its stripe (shorter ones count as zero-padded), with a FEC-ETH of base PSN, m, r,
 * index and length XOR. The engine sends them with manufacturer opcode 0xC1; they take no PSN. Buffers are made
 * once; adding a packet allocates nothing. Engine thread only.
 */
public final class FecEncoder {
    private final int maxPayload;
    private final UnsafeBuffer[] parity;
    private final int[] parityLength;
    private final int[] lengthXor;
    private int basePsn;
    private int m;
    private int r;
    private int added;
    private boolean open;
    private long groups;
    private long packets;

    /**
     * @param maxPayload the longest protected byte string a data packet gives (the path MTU's payload plus whatever
     *                   headers the engine chooses to protect), at most 65535 (the length field is 16 bits)
     * @param maxParity  the most parity packets a group may have
     */
    public FecEncoder(int maxPayload, int maxParity) {
        if (maxPayload < 1 || maxPayload > 0xFFFF) throw new IllegalArgumentException("fec: maxPayload must be 1..65535, was " + maxPayload);
        if (maxParity < 1 || maxParity > 255) throw new IllegalArgumentException("fec: maxParity must be 1..255, was " + maxParity);
        this.maxPayload = maxPayload;
        parity = new UnsafeBuffer[maxParity];
        for (int j = 0; j < maxParity; j++) parity[j] = new UnsafeBuffer(new byte[maxPayload]);
        parityLength = new int[maxParity];
        lengthXor = new int[maxParity];
    }

    /** Starts a group of {@code m} data packets from {@code basePsn}, protected by {@code r} parity packets. */
    public void start(int basePsn, int m, int r) {
        if (m < 1 || m > 255) throw new IllegalArgumentException("fec: m must be 1..255, was " + m);
        if (r < 1 || r > m || r > parity.length) {
            throw new IllegalArgumentException("fec: r must be 1.." + Math.min(m, parity.length) + ", was " + r);
        }
        for (int j = 0; j < this.r; j++) {
            parity[j].setMemory(0, parityLength[j], (byte) 0);
            parityLength[j] = 0;
            lengthXor[j] = 0;
        }
        this.basePsn = basePsn & Psn.MASK;
        this.m = m;
        this.r = r;
        added = 0;
        open = true;
    }

    /**
     * Adds the next data packet of the group (its PSN must be base + the number added so far). Returns true when it
     * was the m-th: the parity packets are ready until the next {@link #start}.
     */
    public boolean add(int psn, DirectBuffer bytes, int offset, int length) {
        if (!open) throw new IllegalStateException("fec: no open group (start one, or the last one is complete)");
        if (Psn.diff(psn, basePsn) != added) {
            throw new IllegalArgumentException("fec: PSN " + psn + " is not the next of the group (expected " + Psn.add(basePsn, added) + ")");
        }
        if (length < 0 || length > maxPayload) throw new IllegalArgumentException("fec: length must be 0.." + maxPayload + ", was " + length);
        int j = added % r;
        Xor.into(parity[j], bytes, offset, length);
        if (length > parityLength[j]) parityLength[j] = length;
        lengthXor[j] ^= length;
        packets++;
        if (++added == m) {
            open = false;
            groups++;
            return true;
        }
        return false;
    }

    /** True while a group is open and not yet complete. */
    public boolean open() {
        return open;
    }

    /** The next PSN the open group expects. */
    public int nextPsn() {
        return Psn.add(basePsn, added);
    }

    public int basePsn() {
        return basePsn;
    }

    public int m() {
        return m;
    }

    public int r() {
        return r;
    }

    /** Parity payload {@code j} (valid from the group's completion to the next start): bytes [0, parityLength(j)). */
    public DirectBuffer parity(int j) {
        return parity[j];
    }

    public int parityLength(int j) {
        return parityLength[j];
    }

    public int lengthXor(int j) {
        return lengthXor[j];
    }

    /** Writes parity {@code j}'s FEC-ETH at {@code offset}. */
    public void putFecEth(MutableDirectBuffer b, int offset, int j) {
        FecEth.put(b, offset, basePsn, m, r, j, lengthXor[j]);
    }

    /** Groups completed. */
    public long groups() {
        return groups;
    }

    /** Data packets added. */
    public long packets() {
        return packets;
    }
}
