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
import org.urdma.nativeio.NetInterface;
import org.urdma.transport.port.PortIdentity;

/**
 * The floor under send-lat: a ping-pong of raw Ethernet frames between two processes over AF_PACKET, no RDMA
 * engine — a TPACKET_V2 RX ring busy-polled and one send per hop (sendmmsg for short frames, else the TX ring), as the
 * engine does. With K
 * frames per hop each side sends K frames in one send() and waits for K: K = 2 is an RC ping-pong's wire pattern
 * (the message and the ACK of the peer's), so it is the floor under RC send-lat.
 * <pre>
 * java -cp urdma.jar org.urdma.bench.perf.RawPingPong echo IFACE [K]       answers every K frames with K (until killed)
 * java -cp urdma.jar org.urdma.bench.perf.RawPingPong ping IFACE PEER_MAC SIZE ITERS [K]
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

    /** Sends the way the engine's AfPacketLink does: short frames by sendmmsg, long ones from the TX ring. */
    static AfPacketSocket open(String ifname) {
        return AfPacketSocket.open(ifname, AfPacketOptions.defaults().version(AfPacketOptions.Version.V2).protocol(ETHERTYPE)
                .rxRing(1 << 16, 16, 2048, 1).txRing(2048, 64).copySendMax(AfPacketLink.COPY_SEND_MAX));
    }

    public static void main(String[] args) {
        switch (args.length > 0 ? args[0] : "") {
            case "echo" -> echo(args[1], args.length > 2 ? perHop(args[2]) : 1);
            case "ping" -> ping(args[1], PortIdentity.parseMac(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    args.length > 5 ? perHop(args[5]) : 1);
            default -> {
                System.err.println("usage: RawPingPong echo IFACE [K] | ping IFACE PEER_MAC SIZE ITERS [K]");
                System.exit(2);
            }
        }
    }

    private static int perHop(String k) {
        int n = Integer.parseInt(k);
        if (n < 1 || n > 32) throw new IllegalArgumentException("K (frames per hop): 1..32, was " + k);
        return n;
    }

    /** Sends every {@code k} frames back to their source in one send(), busy-polling, until the process is killed. */
    static void echo(String ifname, int k) {
        byte[] me = NetInterface.lookup(ifname).mac();
        try (AfPacketSocket s = open(ifname)) {
            System.out.println("raw echo on " + ifname);
            System.out.flush();
            int[] held = new int[1];
            FrameHandler back = f -> {
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
    static void ping(String ifname, byte[] peer, int size, int iters, int k) {
        byte[] me = NetInterface.lookup(ifname).mac();
        int frame = Math.max(60, 14 + 4 + size);
        // got[0]: answers to this round, got[1]: its sequence number (a probe sent before the echo started must not
        // count: with K > 1 the echo could answer a round half with the frames of an earlier one)
        int[] got = new int[2];
        FrameHandler h = f -> {
            if (f.length() >= 18 && f.buffer().get(BE_INT, f.offset() + 14) == got[1]) got[0]++;
        };
        Histogram hist = new Histogram(3_600_000_000_000L, 3);
        try (AfPacketSocket s = open(ifname)) {
            // the echo may still be starting: probe until it answers
            long giveUp = System.nanoTime() + 30_000_000_000L;
            while (!round(s, me, peer, frame, -1, k, got, h, 10_000_000L)) {
                if (System.nanoTime() > giveUp) throw new IllegalStateException("raw ping-pong: no echo on " + ifname + " within 30 s");
            }
            for (int i = 0; i < iters + iters / 2; i++) {
                long t0 = System.nanoTime();
                if (!round(s, me, peer, frame, i, k, got, h, 1_000_000_000L)) {
                    throw new IllegalStateException("raw ping-pong: frame " + i + " got no answer within 1 s");
                }
                if (i >= iters / 2) hist.recordValue(Math.max(1, (System.nanoTime() - t0) / 2));
            }
        }
        System.out.printf(Locale.ROOT, "raw AF_PACKET ping-pong %d B (frame %d B, %d per hop), half round trip [usec]: min %.2f p50 %.2f"
                        + " avg %.2f p99 %.2f p99.9 %.2f max %.2f%n", size, frame, k, hist.getMinValue() / 1e3, hist.getValueAtPercentile(50) / 1e3,
                hist.getMean() / 1e3, hist.getValueAtPercentile(99) / 1e3, hist.getValueAtPercentile(99.9) / 1e3, hist.getMaxValue() / 1e3);
    }

    private static boolean round(AfPacketSocket s, byte[] me, byte[] peer, int frame, int seq, int k, int[] got, FrameHandler h,
                                 long timeout) {
        got[0] = 0;
        got[1] = seq;
        long start = System.nanoTime();
        for (int j = 0; j < k; j++) {
            int slot;
            while ((slot = s.txAcquire(frame)) < 0) s.flush();
            long at = s.txDataAddress(slot);
            MemorySegment.copy(peer, 0, MEMORY, JAVA_BYTE, at, 6);
            MemorySegment.copy(me, 0, MEMORY, JAVA_BYTE, at + 6, 6);
            MEMORY.set(BE_SHORT, at + 12, (short) ETHERTYPE);
            MEMORY.set(BE_INT, at + 14, seq);
            s.txCommit(slot, frame);
        }
        s.flush();
        while (got[0] < k) {
            s.receive(h);
            if (System.nanoTime() - start > timeout) return false;
        }
        return true;
    }
}
