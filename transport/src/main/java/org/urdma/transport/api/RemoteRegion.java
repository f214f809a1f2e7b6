package org.urdma.transport.api;

import java.nio.ByteBuffer;
import org.urdma.verbs.MemoryRegion;

/**
 * A memory region as a peer addresses it for RDMA WRITE, READ and atomics: its address, R_Key and length. Travels as
 * connection private data ({@link #toBytes()}, 20 bytes, big-endian).
 *
 * @param address the region's first byte, as the peer's work requests name it
 * @param rkey    the R_Key granting access to it
 * @param length  its length in bytes
 */
public record RemoteRegion(long address, int rkey, long length) {
    /** Length of the encoded form. */
    public static final int BYTES = 8 + 4 + 8;

    /**
     * How a peer addresses a region.
     *
     * @param mr a registered region of this process
     * @return how a peer addresses it
     */
    public static RemoteRegion of(MemoryRegion mr) {
        return new RemoteRegion(mr.address(), mr.rkey(), mr.length());
    }

    /** {@return the 20-byte encoded form, for {@link EndpointOptions#withPrivateData}} */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putLong(address).putInt(rkey).putLong(length).array();
    }

    /**
     * Decodes a peer's private data.
     *
     * @param data what {@link #toBytes()} made
     * @return the region it describes
     * @throws IllegalArgumentException if {@code data} is not {@link #BYTES} long (the peer sent no region)
     */
    public static RemoteRegion fromBytes(byte[] data) {
        if (data.length != BYTES) {
            throw new IllegalArgumentException("privateData: a remote region is " + BYTES + " bytes, got " + data.length);
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        return new RemoteRegion(b.getLong(), b.getInt(), b.getLong());
    }
}
