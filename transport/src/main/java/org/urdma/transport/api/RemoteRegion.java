package org.urdma.transport.api;

import java.nio.ByteBuffer;
import org.urdma.verbs.MemoryRegion;

/**
 * A memory region as a peer addresses it for RDMA WRITE, READ and atomics: its address, R_Key and length. Travels as
 * connection private data ({@link #toBytes()}, 20 bytes, big-endian).
 */
public record RemoteRegion(long address, int rkey, long length) {
    public static final int BYTES = 8 + 4 + 8;

    public static RemoteRegion of(MemoryRegion mr) {
        return new RemoteRegion(mr.address(), mr.rkey(), mr.length());
    }

    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putLong(address).putInt(rkey).putLong(length).array();
    }

    /** @throws IllegalArgumentException if {@code data} is not {@link #BYTES} long (the peer sent no region) */
    public static RemoteRegion fromBytes(byte[] data) {
        if (data.length != BYTES) {
            throw new IllegalArgumentException("privateData: a remote region is " + BYTES + " bytes, got " + data.length);
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        return new RemoteRegion(b.getLong(), b.getInt(), b.getLong());
    }
}
