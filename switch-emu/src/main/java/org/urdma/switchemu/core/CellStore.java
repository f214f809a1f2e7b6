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

    /**
     * Copies a frame in; returns its handle, or {@link #NONE} if it is empty or there are not enough free
     * cells. Cells that follow each other in memory are filled with one copy (see {@link #free}).
     */
    public int store(DirectBuffer src, int offset, int length) {
        int needed = cellsFor(length);
        if (needed > freeCount || needed == 0) {
            return NONE;
        }
        int head = freeStack[--freeCount];
        int prev = head;
        for (int k = 1; k < needed; k++) {
            int c = freeStack[--freeCount];
            cellNext[prev] = c;
            prev = c;
        }
        cellNext[prev] = NONE;
        for (int cell = head, done = 0; cell != NONE && done < length; ) {
            int last = runEnd(cell);
            int bytes = Math.min((last - cell + 1) * cellBytes, length - done);
            memory.putBytes(cell * cellBytes, src, offset + done, bytes);
            done += bytes;
            cell = cellNext[last];
        }
        return head;
    }

    /** Copies the {@code length} bytes stored at {@code handle} out contiguously (one copy per run of adjacent cells). */
    public void copyOut(int handle, int length, MutableDirectBuffer dst, int dstOffset) {
        for (int cell = handle, done = 0; cell != NONE && done < length; ) {
            int last = runEnd(cell);
            int bytes = Math.min((last - cell + 1) * cellBytes, length - done);
            dst.putBytes(dstOffset + done, memory, cell * cellBytes, bytes);
            done += bytes;
            cell = cellNext[last];
        }
    }

    /** The last cell of the run of chained cells adjacent in memory that starts at {@code cell}. */
    private int runEnd(int cell) {
        while (cellNext[cell] == cell + 1) cell++;
        return cell;
    }

    /**
     * Returns a frame's cells. They go back in chain order (the first on top), so the next frame of the
     * same size gets the same run of adjacent cells and is copied in and out with one copy each.
     */
    public void free(int handle) {
        int n = 0;
        for (int c = handle; c != NONE; c = cellNext[c]) {
            n++;
        }
        int at = freeCount + n - 1;
        for (int c = handle; c != NONE; c = cellNext[c]) {
            freeStack[at--] = c;
        }
        freeCount += n;
    }
}
