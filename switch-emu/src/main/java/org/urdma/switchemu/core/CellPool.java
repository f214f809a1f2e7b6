package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.impair.CellStore;

/**
 * Packet memory of the switch: an off-heap region cut into fixed cells, like a switch MMU. A stored frame is a
 * chain of cells; its handle is the first cell's index, and the per-frame metadata (length, ingress port, priority,
 * release time, queue link) lives in arrays indexed by it. All cells are made up front, or, on demand, the region
 * starts at {@link #INITIAL_CELLS} and doubles up to its size when frames need more, so a simulated switch costs the
 * memory its queues have used, not its whole buffer (a fabric of 56 switches with 32 MB buffers would otherwise hold
 * 3.6 GB); once grown, storing allocates nothing.
 */
final class CellPool {
    static final int NONE = CellStore.NONE;

    private final CellStore cells;

    static final int INITIAL_CELLS = 4096;

    int[] frameLength;
    /** Bytes the frame takes on the wire: its length, or more when a simulated frame describes its payload. */
    int[] frameWire;
    int[] frameInPort;
    int[] framePriority;
    int[] frameIpv4;
    long[] frameEligible;
    int[] frameNext;

    CellPool(int cells, int cellBytes) {
        this(cells, cellBytes, false);
    }

    /** {@code onDemand}: start small and grow (a simulated switch); else make every cell now (real time: no growth ever). */
    CellPool(int cells, int cellBytes, boolean onDemand) {
        this.cells = new CellStore(onDemand ? Math.min(cells, INITIAL_CELLS) : cells, cells, cellBytes);
        int n = this.cells.cells();
        this.frameLength = new int[n];
        this.frameWire = new int[n];
        this.frameInPort = new int[n];
        this.framePriority = new int[n];
        this.frameIpv4 = new int[n];
        this.frameEligible = new long[n];
        this.frameNext = new int[n];
    }

    /** The metadata arrays follow the cells the store has made (a handle is a cell index). */
    private void growMetadata(int n) {
        frameLength = java.util.Arrays.copyOf(frameLength, n);
        frameWire = java.util.Arrays.copyOf(frameWire, n);
        frameInPort = java.util.Arrays.copyOf(frameInPort, n);
        framePriority = java.util.Arrays.copyOf(framePriority, n);
        frameIpv4 = java.util.Arrays.copyOf(frameIpv4, n);
        frameEligible = java.util.Arrays.copyOf(frameEligible, n);
        frameNext = java.util.Arrays.copyOf(frameNext, n);
    }

    /** Cells still free, counting those the store may yet make. */
    int freeCells() {
        return cells.freeCells() + cells.maxCells() - cells.cells();
    }

    int cellsFor(int length) {
        return cells.cellsFor(length);
    }

    /** Copies a frame in; returns its handle, or {@link #NONE} if there are not enough free cells. */
    int store(DirectBuffer src, int offset, int length) {
        int head = cells.store(src, offset, length);
        if (head == NONE) {
            return NONE;
        }
        if (cells.cells() > frameLength.length) {
            growMetadata(cells.cells());
        }
        frameLength[head] = length;
        frameWire[head] = length;
        frameNext[head] = NONE;
        return head;
    }

    /** Copies a stored frame out contiguously; returns its length. */
    int copyOut(int handle, MutableDirectBuffer dst, int dstOffset) {
        int length = frameLength[handle];
        cells.copyOut(handle, length, dst, dstOffset);
        return length;
    }

    void free(int handle) {
        cells.free(handle);
    }
}
