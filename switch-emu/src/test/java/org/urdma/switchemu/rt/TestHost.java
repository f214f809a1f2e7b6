package org.urdma.switchemu.rt;

import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.RxFrame;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** A test host: an AF_PACKET socket on eth0 of a host namespace (V2 RX ring), sending and collecting frames. */
final class TestHost implements AutoCloseable {
    /** IEEE local experimental EtherType 2: nothing but the tests sends it. */
    static final int ETHERTYPE = 0x88B6;

    final String name;
    final long mac;
    final AfPacketSocket socket;

    TestHost(String name, String ns, long mac) throws Exception {
        this.name = name;
        this.mac = mac;
        AfPacketOptions o = AfPacketOptions.forMtu(9000).version(AfPacketOptions.Version.V2)
            .rxRing(1 << 20, 16, 9216 + 128, 0).txRing(9216 + 128, 256);
        this.socket = Netns.call(ns, () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, o));
    }

    void send(byte[] frame) {
        long rc;
        while ((rc = socket.send(MemorySegment.ofArray(frame), frame.length)) < 0) {
            if (rc != -11 && rc != -105) { // EAGAIN, ENOBUFS: ring busy, try again
                throw new IllegalStateException("send failed: " + rc);
            }
            Thread.onSpinWait();
        }
    }

    /** Frames received since the last call, as arrays with any stripped VLAN tag put back. */
    List<byte[]> drain() {
        List<byte[]> out = new ArrayList<>();
        socket.receive(f -> out.add(bytes(f)));
        return out;
    }

    /** Passes every received frame (tag put back) to {@code sink}; returns the count. */
    int receive(Consumer<byte[]> sink) {
        return socket.receive(f -> sink.accept(bytes(f)));
    }

    /** Collects matching frames until {@code count} arrived or {@code timeoutMs} passed. */
    List<byte[]> await(Predicate<byte[]> match, int count, long timeoutMs) {
        List<byte[]> got = new ArrayList<>();
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        while (got.size() < count && System.nanoTime() < end) {
            if (socket.receive(f -> {
                byte[] b = bytes(f);
                if (match.test(b)) {
                    got.add(b);
                }
            }) == 0) {
                socket.pollIn(1);
            }
        }
        return got;
    }

    static byte[] bytes(RxFrame f) {
        byte[] raw = f.toArray();
        if (!f.vlanValid()) {
            return raw;
        }
        byte[] tagged = new byte[raw.length + 4];
        System.arraycopy(raw, 0, tagged, 0, 12);
        int tpid = f.vlanTpid() == 0 ? 0x8100 : f.vlanTpid();
        tagged[12] = (byte) (tpid >> 8);
        tagged[13] = (byte) tpid;
        tagged[14] = (byte) (f.vlanTci() >> 8);
        tagged[15] = (byte) f.vlanTci();
        System.arraycopy(raw, 12, tagged, 16, raw.length - 12);
        return tagged;
    }

    /** A test frame: DA, SA, optional 802.1Q tag with {@code pcp} (-1 = untagged), EtherType, then seq and send time. */
    static byte[] frame(long da, long sa, int pcp, int size, long seq) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(size, 60));
        putMac(b, da);
        putMac(b, sa);
        if (pcp >= 0) {
            b.putShort((short) 0x8100).putShort((short) (pcp << 13 | 1));
        }
        b.putShort((short) ETHERTYPE).putLong(seq).putLong(System.nanoTime());
        return b.array();
    }

    static void putMac(ByteBuffer b, long mac) {
        for (int i = 5; i >= 0; i--) {
            b.put((byte) (mac >>> (8 * i)));
        }
    }

    static long mac(byte[] f, int at) {
        long m = 0;
        for (int i = 0; i < 6; i++) {
            m = m << 8 | (f[at + i] & 0xFF);
        }
        return m;
    }

    /** EtherType after an optional tag. */
    static int etherType(byte[] f) {
        int t = (f[12] & 0xFF) << 8 | (f[13] & 0xFF);
        return t == 0x8100 ? (f[16] & 0xFF) << 8 | (f[17] & 0xFF) : t;
    }

    static int pcp(byte[] f) {
        int t = (f[12] & 0xFF) << 8 | (f[13] & 0xFF);
        return t == 0x8100 ? (f[14] & 0xFF) >> 5 : -1;
    }

    /** Offset of the seq field. */
    static int payload(byte[] f) {
        return ((f[12] & 0xFF) << 8 | (f[13] & 0xFF)) == 0x8100 ? 18 : 14;
    }

    static long seq(byte[] f) {
        return ByteBuffer.wrap(f, payload(f), 8).getLong();
    }

    static long sentAt(byte[] f) {
        return ByteBuffer.wrap(f, payload(f) + 8, 8).getLong();
    }

    static boolean isTest(byte[] f) {
        return f.length >= 18 && etherType(f) == ETHERTYPE;
    }

    static boolean isMacControl(byte[] f) {
        return f.length >= 14 && etherType(f) == 0x8808;
    }

    @Override
    public void close() {
        socket.close();
    }
}
