package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Preallocated off-heap memory cut into fixed cells; a stored frame is a chain of cells named by its
 * first cell (the handle). Shared by the switch's packet memory and the real-time driver's delay heap.
 * Nothing is allocated after construction.
 */
public final class CellStore {
    public static final int NONE = -1;

    private final UnsafeBuffer memory;
    private final int cellBytes;
    private final int[] cellNext;
    private final int[] freeStack;
    private int freeCount;

    public CellStore(int cells, int cellBytes) {
        this.cellBytes = cellBytes;
        this.memory = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.multiplyExact(cells, cellBytes)));
        this.cellNext = new int[cells];
        this.freeStack = new int[cells];
        for (int i = 0; i < cells; i++) {
            freeStack[i] = cells - 1 - i;
        }
        this.freeCount = cells;
    }

    public int freeCells() {
        return freeCount;
    }

    public int cellsFor(int length) {
        return (length + cellBytes - 1) / cellBytes;
    }

    /** Copies a frame in; returns its handle, or {@link #NONE} if it is empty or there are not enough free cells. */
    public int store(DirectBuffer src, int offset, int length) {
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
                return head;
            }
            int next = freeStack[--freeCount];
            cellNext[cell] = next;
            cell = next;
        }
    }

    /** Copies the {@code length} bytes stored at {@code handle} out contiguously. */
    public void copyOut(int handle, int length, MutableDirectBuffer dst, int dstOffset) {
        int cell = handle;
        int done = 0;
        while (cell != NONE) {
            int chunk = Math.min(cellBytes, length - done);
            dst.putBytes(dstOffset + done, memory, cell * cellBytes, chunk);
            done += chunk;
            cell = cellNext[cell];
        }
    }

    public void free(int handle) {
        int cell = handle;
        while (cell != NONE) {
            int next = cellNext[cell];
            freeStack[freeCount++] = cell;
            cell = next;
        }
    }
}
