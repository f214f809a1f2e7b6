package org.urdma.bench.perf;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.transport.link.ethernet.AfPacketLink;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.LinuxConstants;
import org.urdma.nativeio.NetInterface;
import org.urdma.transport.port.PortIdentity;

/**
 * The floor under send-lat: a ping-pong of raw Ethernet frames between two processes over AF_PACKET, no RDMA
 * engine — a TPACKET_V2 RX ring busy-polled and one send per hop (sendmmsg for short frames, else the TX ring), as the
 * engine does. With K
 * frames per hop each side sends K frames in one send() and waits for K: K = 2 is an RC ping-pong's wire pattern
 * (the message and the ACK of the peer's), so it is the floor under RC send-lat.
 * <p>Two frame shapes: {@code ether} (default), frames of an EtherType of their own to the interface's MAC; {@code roce2},
 * the frames a urdma RoCEv2 port sends: IPv4/UDP to port 4791, as long as a SEND of SIZE bytes (Ethernet, IPv4, UDP,
 * BTH, payload, ICRC), between port MACs the kernel does not own, on an ETH_P_ALL socket; so the kernel treats them as
 * it treats urdma's (it parses IPv4 and drops them as another host's after the sockets' copies).
 * <pre>
 * java -cp urdma.jar org.urdma.bench.perf.RawPingPong echo IFACE [K [roce2 PORT_MAC]]      answers every K frames with K (until killed)
 * java -cp urdma.jar org.urdma.bench.perf.RawPingPong ping IFACE PEER_MAC SIZE ITERS [K [roce2 PORT_MAC]]
 * </pre>
 */
public final class RawPingPong {
    static final int ETHERTYPE = 0x88B6;
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RawPingPong() {
    }

    /** All memory, addressed absolutely: slots are written at their addresses without making a segment per frame. */
    @SuppressWarnings("restricted")
    private static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** IPv4's EtherType, and where a roce2-shaped frame carries the ping's sequence number (after IPv4 and UDP). */
    static final int IPV4 = 0x0800, ROCE2_SEQ = 14 + 20 + 8, ROCEV2_PORT = 4791;

    /**
     * Sends the way the engine's AfPacketLink does: short frames by sendmmsg, long ones from the TX ring; with roce2 frames
     * the socket takes every EtherType, as the engine's.
     */
    static AfPacketSocket open(String ifname, boolean roce2) {
        return AfPacketSocket.open(ifname, AfPacketOptions.defaults().version(AfPacketOptions.Version.V2)
                .protocol(roce2 ? LinuxConstants.ETH_P_ALL : ETHERTYPE)
                .rxRing(1 << 16, 16, 2048, 1).txRing(2048, 64).copySendMax(AfPacketLink.COPY_SEND_MAX));
    }

    public static void main(String[] args) {
        switch (args.length > 0 ? args[0] : "") {
            case "echo" -> echo(args[1], args.length > 2 ? perHop(args[2]) : 1, portMac(args, 3));
            case "ping" -> ping(args[1], PortIdentity.parseMac(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    args.length > 5 ? perHop(args[5]) : 1, portMac(args, 6));
            default -> {
                System.err.println("usage: RawPingPong echo IFACE [K [roce2 PORT_MAC]] | ping IFACE PEER_MAC SIZE ITERS [K [roce2 PORT_MAC]]");
                System.exit(2);
            }
        }
    }

    /** A roce2-shaped frame's length for a SIZE-byte message: urdma's SEND (Ethernet, IPv4, UDP, BTH, payload, ICRC). */
    static int roce2FrameLength(int size) {
        return Math.max(60, 14 + 20 + 8 + 12 + size + 4);
    }

    /** The port MAC after "roce2" at {@code args[i]}, or null for the default shape (the interface's own MAC). */
    private static byte[] portMac(String[] args, int i) {
        if (args.length <= i) return null;
        if (!args[i].equals("roce2") || args.length <= i + 1) {
            throw new IllegalArgumentException("frame shape: roce2 PORT_MAC, was " + String.join(" ", java.util.Arrays.copyOfRange(args, i, args.length)));
        }
        return PortIdentity.parseMac(args[i + 1]);
    }

    private static int perHop(String k) {
        int n = Integer.parseInt(k);
        if (n < 1 || n > 32) throw new IllegalArgumentException("K (frames per hop): 1..32, was " + k);
        return n;
    }

    /**
     * Sends every {@code k} frames back to their source in one send(), busy-polling, until the process is killed; with a
     * port MAC (roce2 frames), only the roce2 frames sent to it, answered from it.
     */
    static void echo(String ifname, int k, byte[] port) {
        byte[] me = port != null ? port : NetInterface.lookup(ifname).mac();
        try (AfPacketSocket s = open(ifname, port != null)) {
            System.out.println("raw echo on " + ifname);
            System.out.flush();
            int[] held = new int[1];
            FrameHandler back = f -> {
                if (port != null && !isRoce2To(f.buffer(), f.offset(), f.length(), port)) return;
                int slot;
                while ((slot = s.txAcquire(f.length())) < 0) s.flush();
                long at = s.txDataAddress(slot);
                MemorySegment.copy(f.buffer(), f.offset(), MEMORY, at, f.length());
                MemorySegment.copy(f.buffer(), f.offset() + 6, MEMORY, at, 6); // to its source
                MemorySegment.copy(me, 0, MEMORY, JAVA_BYTE, at + 6, 6);
                s.txCommit(slot, f.length());
                if (++held[0] == k) {
                    s.flush();
                    held[0] = 0;
                }
            };
            while (true) s.receive(back);
        }
    }

    /** Sends {@code iters} frames one at a time (after a warm-up of half as many) and prints the half round trip. */
    static void ping(String ifname, byte[] peer, int size, int iters, int k, byte[] port) {
        boolean roce2 = port != null;
        byte[] me = roce2 ? port : NetInterface.lookup(ifname).mac();
        int frame = roce2 ? roce2FrameLength(size) : Math.max(60, 14 + 4 + size);
        int seqAt = roce2 ? ROCE2_SEQ : 14;
        // got[0]: answers to this round, got[1]: its sequence number (a probe sent before the echo started must not
        // count: with K > 1 the echo could answer a round half with the frames of an earlier one)
        int[] got = new int[2];
        FrameHandler h = f -> {
            if (roce2 && !isRoce2To(f.buffer(), f.offset(), f.length(), port)) return;
            if (f.length() >= seqAt + 4 && f.buffer().get(BE_INT, f.offset() + seqAt) == got[1]) got[0]++;
        };
        Histogram hist = new Histogram(3_600_000_000_000L, 3);
        try (AfPacketSocket s = open(ifname, roce2)) {
            // the echo may still be starting: probe until it answers
            long giveUp = System.nanoTime() + 30_000_000_000L;
            while (!round(s, me, peer, frame, roce2, -1, k, got, h, 10_000_000L)) {
                if (System.nanoTime() > giveUp) throw new IllegalStateException("raw ping-pong: no echo on " + ifname + " within 30 s");
            }
            for (int i = 0; i < iters + iters / 2; i++) {
                long t0 = System.nanoTime();
                if (!round(s, me, peer, frame, roce2, i, k, got, h, 1_000_000_000L)) {
                    throw new IllegalStateException("raw ping-pong: frame " + i + " got no answer within 1 s");
                }
                if (i >= iters / 2) hist.recordValue(Math.max(1, (System.nanoTime() - t0) / 2));
            }
        }
        System.out.printf(Locale.ROOT, "raw AF_PACKET ping-pong %d B (frame %d B, %d per hop), half round trip [usec]: min %.2f p50 %.2f"
                        + " avg %.2f p99 %.2f p99.9 %.2f max %.2f%n", size, frame, k, hist.getMinValue() / 1e3, hist.getValueAtPercentile(50) / 1e3,
                hist.getMean() / 1e3, hist.getValueAtPercentile(99) / 1e3, hist.getValueAtPercentile(99.9) / 1e3, hist.getMaxValue() / 1e3);
    }

    private static boolean round(AfPacketSocket s, byte[] me, byte[] peer, int frame, boolean roce2, int seq, int k, int[] got,
                                 FrameHandler h, long timeout) {
        got[0] = 0;
        got[1] = seq;
        long start = System.nanoTime();
        for (int j = 0; j < k; j++) {
            int slot;
            while ((slot = s.txAcquire(frame)) < 0) s.flush();
            long at = s.txDataAddress(slot);
            MemorySegment.copy(peer, 0, MEMORY, JAVA_BYTE, at, 6);
            MemorySegment.copy(me, 0, MEMORY, JAVA_BYTE, at + 6, 6);
            if (roce2) {
                ipv4Udp(at, frame);
                MEMORY.set(BE_INT, at + ROCE2_SEQ, seq);
            } else {
                MEMORY.set(BE_SHORT, at + 12, (short) ETHERTYPE);
                MEMORY.set(BE_INT, at + 14, seq);
            }
            s.txCommit(slot, frame);
        }
        s.flush();
        while (got[0] < k) {
            s.receive(h);
            if (System.nanoTime() - start > timeout) return false;
        }
        return true;
    }

    /** EtherType IPv4 and IPv4 (with its header checksum) and UDP headers to port 4791 for a frame of {@code frame} bytes at {@code at}. */
    private static void ipv4Udp(long at, int frame) {
        MEMORY.set(BE_SHORT, at + 12, (short) IPV4);
        long ip = at + 14;
        MEMORY.set(BE_SHORT, ip, (short) 0x4502); // version 4, 5 words; ECT(0), as urdma's frames
        MEMORY.set(BE_SHORT, ip + 2, (short) (frame - 14));
        MEMORY.set(BE_INT, ip + 4, 0x4000); // no id, don't fragment
        MEMORY.set(BE_SHORT, ip + 8, (short) 0x4011); // TTL 64, UDP
        MEMORY.set(BE_SHORT, ip + 10, (short) 0);
        MEMORY.set(BE_INT, ip + 12, 0x0A5E000B); // 10.94.0.11
        MEMORY.set(BE_INT, ip + 16, 0x0A5E000C); // 10.94.0.12
        long sum = 0;
        for (int i = 0; i < 20; i += 2) sum += Short.toUnsignedInt(MEMORY.get(BE_SHORT, ip + i));
        while ((sum >> 16) != 0) sum = (sum & 0xFFFF) + (sum >> 16);
        MEMORY.set(BE_SHORT, ip + 10, (short) ~sum);
        long udp = ip + 20;
        MEMORY.set(BE_SHORT, udp, (short) 0xC000);
        MEMORY.set(BE_SHORT, udp + 2, (short) ROCEV2_PORT);
        MEMORY.set(BE_SHORT, udp + 4, (short) (frame - 34));
        MEMORY.set(BE_SHORT, udp + 6, (short) 0);
    }

    /** A roce2-shaped frame (IPv4, UDP to 4791) sent to {@code port}. */
    private static boolean isRoce2To(MemorySegment b, long off, int len, byte[] port) {
        if (len < ROCE2_SEQ + 4 || Short.toUnsignedInt(b.get(BE_SHORT, off + 12)) != IPV4
                || Short.toUnsignedInt(b.get(BE_SHORT, off + 14 + 20 + 2)) != ROCEV2_PORT) {
            return false;
        }
        for (int i = 0; i < 6; i++) {
            if (b.get(JAVA_BYTE, off + i) != port[i]) return false;
        }
        return true;
    }
}
