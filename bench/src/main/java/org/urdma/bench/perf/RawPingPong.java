package org.urdma.bench.perf;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.NetInterface;
import org.urdma.transport.port.PortIdentity;

/**
 * The floor under send-lat: a ping-pong of raw Ethernet frames between two processes over AF_PACKET, no RDMA
 * engine — a TPACKET_V2 RX ring busy-polled and one TX ring slot plus one send() per frame, as the engine does.
 * <pre>
 * java -cp urdma.jar org.urdma.bench.perf.RawPingPong echo IFACE            answers every frame (until killed)
 * java -cp urdma.jar org.urdma.bench.perf.RawPingPong ping IFACE PEER_MAC SIZE ITERS
 * </pre>
 */
public final class RawPingPong {
    static final int ETHERTYPE = 0x88B6;
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RawPingPong() {
    }

    static AfPacketSocket open(String ifname) {
        return AfPacketSocket.open(ifname, AfPacketOptions.defaults().version(AfPacketOptions.Version.V2).protocol(ETHERTYPE)
                .rxRing(1 << 16, 16, 2048, 1).txRing(2048, 64));
    }

    public static void main(String[] args) {
        switch (args.length > 0 ? args[0] : "") {
            case "echo" -> echo(args[1]);
            case "ping" -> ping(args[1], PortIdentity.parseMac(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            default -> {
                System.err.println("usage: RawPingPong echo IFACE | ping IFACE PEER_MAC SIZE ITERS");
                System.exit(2);
            }
        }
    }

    /** Sends every frame back to its source, busy-polling, until the process is killed. */
    static void echo(String ifname) {
        byte[] me = NetInterface.lookup(ifname).mac();
        try (AfPacketSocket s = open(ifname)) {
            System.out.println("raw echo on " + ifname);
            System.out.flush();
            FrameHandler back = f -> {
                int slot;
                while ((slot = s.txAcquire()) < 0) s.flush();
                long off = s.txDataOffset(slot);
                MemorySegment.copy(f.buffer(), f.offset(), s.txBuffer(), off, f.length());
                MemorySegment.copy(f.buffer(), f.offset() + 6, s.txBuffer(), off, 6); // to its source
                MemorySegment.copy(me, 0, s.txBuffer(), JAVA_BYTE, off + 6, 6);
                s.txCommit(slot, f.length());
                s.flush();
            };
            while (true) s.receive(back);
        }
    }

    /** Sends {@code iters} frames one at a time (after a warm-up of half as many) and prints the half round trip. */
    static void ping(String ifname, byte[] peer, int size, int iters) {
        byte[] me = NetInterface.lookup(ifname).mac();
        int frame = Math.max(60, 14 + 4 + size);
        int[] got = new int[1];
        FrameHandler h = f -> got[0]++;
        Histogram hist = new Histogram(3_600_000_000_000L, 3);
        try (AfPacketSocket s = open(ifname)) {
            // the echo may still be starting: probe until it answers
            long giveUp = System.nanoTime() + 30_000_000_000L;
            while (!round(s, me, peer, frame, -1, got, h, 10_000_000L)) {
                if (System.nanoTime() > giveUp) throw new IllegalStateException("raw ping-pong: no echo on " + ifname + " within 30 s");
            }
            for (int i = 0; i < iters + iters / 2; i++) {
                long t0 = System.nanoTime();
                if (!round(s, me, peer, frame, i, got, h, 1_000_000_000L)) {
                    throw new IllegalStateException("raw ping-pong: frame " + i + " got no answer within 1 s");
                }
                if (i >= iters / 2) hist.recordValue(Math.max(1, (System.nanoTime() - t0) / 2));
            }
        }
        System.out.printf(Locale.ROOT, "raw AF_PACKET ping-pong %d B (frame %d B), half round trip [usec]: min %.2f p50 %.2f avg %.2f p99 %.2f"
                        + " p99.9 %.2f max %.2f%n", size, frame, hist.getMinValue() / 1e3, hist.getValueAtPercentile(50) / 1e3,
                hist.getMean() / 1e3, hist.getValueAtPercentile(99) / 1e3, hist.getValueAtPercentile(99.9) / 1e3, hist.getMaxValue() / 1e3);
    }

    private static boolean round(AfPacketSocket s, byte[] me, byte[] peer, int frame, int seq, int[] got, FrameHandler h, long timeout) {
        int slot;
        while ((slot = s.txAcquire()) < 0) s.flush();
        long off = s.txDataOffset(slot);
        MemorySegment ring = s.txBuffer();
        MemorySegment.copy(peer, 0, ring, JAVA_BYTE, off, 6);
        MemorySegment.copy(me, 0, ring, JAVA_BYTE, off + 6, 6);
        ring.set(BE_SHORT, off + 12, (short) ETHERTYPE);
        ring.set(BE_INT, off + 14, seq);
        got[0] = 0;
        long start = System.nanoTime();
        s.txCommit(slot, frame);
        s.flush();
        while (got[0] == 0) {
            s.receive(h);
            if (System.nanoTime() - start > timeout) return false;
        }
        return true;
    }
}
