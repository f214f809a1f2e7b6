package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Packet memory of the switch: one preallocated off-heap region cut into fixed cells, like a switch
 * MMU. A stored frame is a chain of cells; its handle is the first cell's index, and the per-frame
 * metadata (length, ingress port, priority, release time, queue link) lives in arrays indexed by it.
 */
final class CellPool {
    static final int NONE = -1;

    private final UnsafeBuffer memory;
    private final int cellBytes;
    private final int[] cellNext;
    private final int[] freeStack;
    private int freeCount;

    final int[] frameLength;
    final int[] frameInPort;
    final int[] framePriority;
    final int[] frameIpv4;
    final long[] frameEligible;
    final int[] frameNext;

    CellPool(int cells, int cellBytes) {
        this.cellBytes = cellBytes;
        this.memory = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.multiplyExact(cells, cellBytes)));
        this.cellNext = new int[cells];
        this.freeStack = new int[cells];
        for (int i = 0; i < cells; i++) {
            freeStack[i] = cells - 1 - i;
        }
        this.freeCount = cells;
        this.frameLength = new int[cells];
        this.frameInPort = new int[cells];
        this.framePriority = new int[cells];
        this.frameIpv4 = new int[cells];
        this.frameEligible = new long[cells];
        this.frameNext = new int[cells];
    }

    int freeCells() {
        return freeCount;
    }

    int cellsFor(int length) {
        return (length + cellBytes - 1) / cellBytes;
    }

    /** Copies a frame in; returns its handle, or {@link #NONE} if there are not enough free cells. */
    int store(DirectBuffer src, int offset, int length) {
        int needed = cellsFor(length);
        if (needed > freeCount || needed == 0) {
            return NONE;
        }
        int head = freeStack[--freeCount];
        int cell = head;
        int done = 0;
        while (true) {
            int chunk = Math.min(cellBytes, length - done);
            memory.putBytes(cell * cellBytes, src, offset + done, chunk);
            done += chunk;
            if (done == length) {
                cellNext[cell] = NONE;
                break;
            }
            int next = freeStack[--freeCount];
            cellNext[cell] = next;
            cell = next;
        }
        frameLength[head] = length;
        frameNext[head] = NONE;
        return head;
    }

    /** Copies a stored frame out contiguously; returns its length. */
    int copyOut(int handle, MutableDirectBuffer dst, int dstOffset) {
        int length = frameLength[handle];
        int cell = handle;
        int done = 0;
        while (cell != NONE) {
            int chunk = Math.min(cellBytes, length - done);
            dst.putBytes(dstOffset + done, memory, cell * cellBytes, chunk);
            done += chunk;
            cell = cellNext[cell];
        }
        return length;
    }

    void free(int handle) {
        int cell = handle;
        while (cell != NONE) {
            int next = cellNext[cell];
            freeStack[freeCount++] = cell;
            cell = next;
        }
    }
}
