package org.urdma.transport.cm.perftest;

import java.nio.ByteBuffer;

/**
 * perftest's key message when its exchange runs over rdma_cm (-R, or -z): the {@code struct pingpong_dest} itself,
 * sent as one RDMA SEND (rdma_write_keys), its integers big-endian (perftest's HAVE_ENDIAN path): lid, out_reads, qpn,
 * psn, rkey at 0..19, 4 bytes of padding, vaddr at 24, the GID at 32, srqn at 48, gid_index at 52; 56 bytes.
 */
public final class PerftestKeysBinary {
    /** sizeof(struct pingpong_dest) on x86-64. */
    public static final int LENGTH = 56;

    private PerftestKeysBinary() {}

    public static byte[] encode(PerftestDest d) {
        ByteBuffer b = ByteBuffer.allocate(LENGTH);
        b.putInt(d.lid()).putInt(d.outReads()).putInt(d.qpn()).putInt(d.psn()).putInt(d.rkey()).putInt(0).putLong(d.vaddr());
        b.put(d.gid()).putInt(d.srqn()).putInt(0); // gid_index: the receiver keeps its own (ctx_hand_shake)
        return b.array();
    }

    /** The peer's message; shorter than {@link #LENGTH} is refused naming the length. */
    public static PerftestDest decode(byte[] m) throws ExchangeFormatException {
        if (m.length < LENGTH) {
            throw new ExchangeFormatException("perftest key message over rdma_cm: " + m.length + " bytes, need " + LENGTH);
        }
        ByteBuffer b = ByteBuffer.wrap(m);
        int lid = b.getInt(), outReads = b.getInt(), qpn = b.getInt(), psn = b.getInt(), rkey = b.getInt();
        b.getInt();
        long vaddr = b.getLong();
        byte[] gid = new byte[16];
        b.get(gid);
        int srqn = b.getInt();
        return new PerftestDest(lid & 0xFFFF, outReads & 0xFFFF, qpn & 0xFFFFFF, psn & 0xFFFFFF, rkey, vaddr, gid, srqn);
    }
}
