package org.urdma.switchemu.core;

import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.urdma.switchemu.frame.FrameView;

/**
 * The flow hash an ECMP switch picks a next hop with: the IPv4 5-tuple (source and destination address, protocol,
 * and for UDP/TCP the two ports; RoCEv2 puts a per-QP value in the UDP source port for exactly this), or the two MACs
 * of a frame that is not IPv4, mixed with the switch's seed so that switches of one fabric do not all choose alike
 * (polarisation).
 */
final class EcmpHash {
    private static final int UDP = 17;
    private static final int TCP = 6;

    private EcmpHash() {
    }

    /** The hash of the frame {@code view} has parsed, under {@code seed}. */
    static long of(FrameView view, DirectBuffer buffer, int offset, int length, long seed) {
        int ip = view.ipv4Offset();
        long h;
        if (ip < 0) {
            h = mix(view.destination() ^ seed) ^ view.source();
            return mix(h);
        }
        int at = offset + ip;
        long addresses = buffer.getLong(at + 12, ByteOrder.BIG_ENDIAN); // source then destination
        int protocol = buffer.getByte(at + 9) & 0xFF;
        int ihl = (buffer.getByte(at) & 0xF) * 4;
        long ports = 0;
        if ((protocol == UDP || protocol == TCP) && ip + ihl + 4 <= length) {
            ports = buffer.getInt(at + ihl, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL;
        }
        h = mix(addresses ^ seed);
        h = mix(h ^ (ports << 8 | protocol));
        return h;
    }

    /** Which of {@code n} choices a hash selects (the high 32 bits scaled, so no modulo bias). */
    static int choose(long hash, int n) {
        return (int) (((hash >>> 32) * n) >>> 32);
    }

    /** A 64-bit finaliser (SplitMix64's): every input bit moves about half the output bits. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
