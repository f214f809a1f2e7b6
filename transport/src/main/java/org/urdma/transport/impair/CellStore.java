package org.urdma.transport.impair;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Off-heap memory cut into fixed cells; a stored frame is a chain of cells named by its first cell (the
 * handle). Shared by the switch's packet memory (all cells made up front) and the {@link ReleaseHeap}
 * delay lines, which start small and double up to their limit when a frame does not fit: only growing
 * allocates, and handles stay valid across it.
 */
public final class CellStore {
    public static final int NONE = -1;

    private final int cellBytes;
    private final int maxCells;
    private UnsafeBuffer memory;
    private int[] cellNext;
    private int[] freeStack;
    private int freeCount;

    /** {@code cells} cells of {@code cellBytes}, all made now. */
    public CellStore(int cells, int cellBytes) {
        this(cells, cells, cellBytes);
    }

    /** {@code initialCells} cells of {@code cellBytes} now, more on demand up to {@code maxCells}. */
    public CellStore(int initialCells, int maxCells, int cellBytes) {
        if (cellBytes <= 0) throw new IllegalArgumentException("cellBytes: must be > 0, was " + cellBytes);
        if (initialCells <= 0 || initialCells > maxCells) {
            throw new IllegalArgumentException("initialCells: must be in 1.." + maxCells + ", was " + initialCells);
        }
        Math.multiplyExact(maxCells, cellBytes); // the largest store must be addressable
        this.cellBytes = cellBytes;
        this.maxCells = maxCells;
        this.cellNext = new int[0];
        this.freeStack = new int[0];
        grow(initialCells);
    }

    public int freeCells() {
        return freeCount;
    }

    /** Cells made so far (free or not). */
    public int cells() {
        return cellNext.length;
    }

    public int cellBytes() {
        return cellBytes;
    }

    public int maxCells() {
        return maxCells;
    }

    /**
     * Makes room for {@code cells} cells: copies the stored bytes into new memory and puts the new cells on
     * top of the free stack, lowest first, so the next frames get runs of adjacent cells.
     */
    private void grow(int cells) {
        int old = cellNext.length;
        UnsafeBuffer bytes = new UnsafeBuffer(ByteBuffer.allocateDirect(cells * cellBytes));
        if (old > 0) bytes.putBytes(0, memory, 0, old * cellBytes);
        memory = bytes;
        cellNext = Arrays.copyOf(cellNext, cells);
        freeStack = Arrays.copyOf(freeStack, cells);
        for (int i = cells - 1; i >= old; i--) {
            freeStack[freeCount++] = i;
        }
    }

    public int cellsFor(int length) {
        return (length + cellBytes - 1) / cellBytes;
    }

    /**
     * Copies a frame in; returns its handle, or {@link #NONE} if it is empty or there are not enough free
     * cells even at the largest size. Cells that follow each other in memory are filled with one copy (see
     * {@link #free}).
     */
    public int store(DirectBuffer src, int offset, int length) {
        int needed = cellsFor(length);
        if (needed == 0) {
            return NONE;
        }
        if (needed > freeCount) {
            int missing = needed - freeCount;
            if (cells() + missing > maxCells) {
                return NONE;
            }
            grow((int) Math.min(maxCells, Math.max(2L * cells(), cells() + missing)));
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
