package org.urdma.transport.link;

import java.nio.ByteBuffer;
import org.agrona.AbstractMutableDirectBuffer;
import org.agrona.DirectBuffer;

/**
 * A TX frame slot the engine builds a packet in: off-heap memory at an address, with {@link org.agrona.concurrent.UnsafeBuffer}'s
 * accessors, but writes are not bounds-checked (reads are, as everywhere). The engine sized the frame itself before it
 * wrote a byte (the link's {@code fit} for the opcode and payload), so a write check guards against no input a peer
 * controls, and at ~30 header writes per packet the checks were about a tenth of an in-memory ping-pong's hop
 * ({@code perf send-lat -c UC --link-delay-us 0}: 0.39-0.40 against 0.35-0.37 us with Agrona's checks off everywhere).
 * Received frames keep their checked buffers: their lengths come from the wire. Engine thread only.
 */
public final class SlotBuffer extends AbstractMutableDirectBuffer {
    /** Points at {@code [address, address + length)}. */
    @Override
    public void wrap(final long address, final int length) {
        if (address == 0 || length < 0) {
            throw new IllegalArgumentException("slot: address " + address + ", length " + length);
        }
        addressOffset = address;
        capacity = length;
        byteArray = null;
    }

    @Override
    protected void ensureCapacity(final int index, final int length) {
        // unchecked on purpose: see the class comment
    }

    @Override
    public void wrap(final byte[] buffer) {
        throw offHeapOnly();
    }

    @Override
    public void wrap(final byte[] buffer, final int offset, final int length) {
        throw offHeapOnly();
    }

    @Override
    public void wrap(final ByteBuffer buffer) {
        throw offHeapOnly();
    }

    @Override
    public void wrap(final ByteBuffer buffer, final int offset, final int length) {
        throw offHeapOnly();
    }

    @Override
    public void wrap(final DirectBuffer buffer) {
        throw offHeapOnly();
    }

    @Override
    public void wrap(final DirectBuffer buffer, final int offset, final int length) {
        throw offHeapOnly();
    }

    private static UnsupportedOperationException offHeapOnly() {
        return new UnsupportedOperationException("a SlotBuffer wraps an off-heap slot by address and length only");
    }

    @Override
    public ByteBuffer byteBuffer() {
        return null;
    }

    @Override
    public int wrapAdjustment() {
        return 0;
    }

    @Override
    public boolean isExpandable() {
        return false;
    }

    @Override
    public String toString() {
        return "SlotBuffer{address=" + addressOffset + ", capacity=" + capacity + '}';
    }
}
