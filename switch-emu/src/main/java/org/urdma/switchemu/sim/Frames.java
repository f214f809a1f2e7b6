package org.urdma.switchemu.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.switchemu.frame.FrameView;
import org.urdma.switchemu.frame.Mac;
import org.urdma.transport.wire.Ipv4Header;

import java.nio.ByteOrder;

/**
 * Test traffic frames for the simulator: Ethernet (optionally 802.1Q-tagged) or IPv4/UDP 4791 with a
 * chosen DSCP/ECN. The last 16 bytes carry a trailer (flow id, sequence number, send time) that sinks
 * read back to measure loss, duplication, reordering and delay.
 */
public final class Frames {
    public static final int TRAILER = 16;
    public static final int MIN_LENGTH = 64;

    private Frames() {
    }

    public static byte[] ethernet(long da, long sa, int pcp, int etherType, int length) {
        byte[] f = new byte[Math.max(length, MIN_LENGTH)];
        UnsafeBuffer b = new UnsafeBuffer(f);
        Mac.write(b, 0, da);
        Mac.write(b, 6, sa);
        int type = 12;
        if (pcp >= 0) {
            b.putShort(12, (short) FrameView.TPID_VLAN, ByteOrder.BIG_ENDIAN);
            b.putShort(14, (short) ((pcp << 13) | 1), ByteOrder.BIG_ENDIAN);
            type = 16;
        }
        b.putShort(type, (short) etherType, ByteOrder.BIG_ENDIAN);
        return f;
    }

    /** IPv4 (IHL 5, DF, TTL 64, valid checksum) / UDP to port 4791. */
    public static byte[] ipv4Udp(long da, long sa, int pcp, int dscp, int ecn, int length) {
        byte[] f = ethernet(da, sa, pcp, FrameView.ETHERTYPE_IPV4, length);
        UnsafeBuffer b = new UnsafeBuffer(f);
        int ip = pcp >= 0 ? 18 : 14;
        int ipLength = f.length - ip;
        b.putByte(ip, (byte) 0x45);
        b.putByte(ip + 1, (byte) ((dscp << 2) | (ecn & 3)));
        b.putShort(ip + 2, (short) ipLength, ByteOrder.BIG_ENDIAN);
        b.putShort(ip + 6, (short) 0x4000, ByteOrder.BIG_ENDIAN);
        b.putByte(ip + 8, (byte) 64);
        b.putByte(ip + 9, (byte) 17);
        b.putInt(ip + 12, 0x0A000001, ByteOrder.BIG_ENDIAN);
        b.putInt(ip + 16, 0x0A000002, ByteOrder.BIG_ENDIAN);
        Ipv4Header.putChecksum(b, ip);
        b.putShort(ip + 20, (short) 0xC000, ByteOrder.BIG_ENDIAN);
        b.putShort(ip + 22, (short) 4791, ByteOrder.BIG_ENDIAN);
        b.putShort(ip + 24, (short) (ipLength - 20), ByteOrder.BIG_ENDIAN);
        return f;
    }

    public static void stamp(byte[] frame, int flow, int seq, long sendNs) {
        UnsafeBuffer b = new UnsafeBuffer(frame);
        int t = frame.length - TRAILER;
        b.putInt(t, flow, ByteOrder.BIG_ENDIAN);
        b.putInt(t + 4, seq, ByteOrder.BIG_ENDIAN);
        b.putLong(t + 8, sendNs, ByteOrder.BIG_ENDIAN);
    }

    public static int flow(byte[] frame) {
        return new UnsafeBuffer(frame).getInt(frame.length - TRAILER, ByteOrder.BIG_ENDIAN);
    }

    public static int seq(byte[] frame) {
        return new UnsafeBuffer(frame).getInt(frame.length - TRAILER + 4, ByteOrder.BIG_ENDIAN);
    }

    public static long sendTime(byte[] frame) {
        return new UnsafeBuffer(frame).getLong(frame.length - TRAILER + 8, ByteOrder.BIG_ENDIAN);
    }
}
