package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.impair.CellStore;

/**
 * Packet memory of the switch: one preallocated off-heap region cut into fixed cells, like a switch
 * MMU. A stored frame is a chain of cells; its handle is the first cell's index, and the per-frame
 * metadata (length, ingress port, priority, release time, queue link) lives in arrays indexed by it.
 */
final class CellPool {
    static final int NONE = CellStore.NONE;

    private final CellStore cells;

    final int[] frameLength;
    /** Bytes the frame takes on the wire: its length, or more when a simulated frame describes its payload. */
    final int[] frameWire;
    final int[] frameInPort;
    final int[] framePriority;
    final int[] frameIpv4;
    final long[] frameEligible;
    final int[] frameNext;

    CellPool(int cells, int cellBytes) {
        this.cells = new CellStore(cells, cellBytes);
        this.frameLength = new int[cells];
        this.frameWire = new int[cells];
        this.frameInPort = new int[cells];
        this.framePriority = new int[cells];
        this.frameIpv4 = new int[cells];
        this.frameEligible = new long[cells];
        this.frameNext = new int[cells];
    }

    int freeCells() {
        return cells.freeCells();
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
