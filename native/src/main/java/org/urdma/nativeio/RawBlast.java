package org.urdma.nativeio;

import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Raw AF_PACKET blast: sends N frames of S bytes through the TX ring as fast as it allows and counts
 * them on an RX ring. The baseline for "RC write-bw >= 0.8x raw AF_PACKET blast".
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp native/target/classes org.urdma.nativeio.RawBlast veth [frames] [size] [mtu] [bypass]
 *     two fresh namespaces joined by a veth pair (needs root), receiver thread in one, sender in the other
 * ... RawBlast tx IFACE frames size [bypass]   send from the current namespace (to broadcast)
 * ... RawBlast rx IFACE seconds               count frames of EtherType 0x88B5 for that long
 * ... RawBlast pingpong [rounds] [size] [V2|V3] round-trip time over a veth pair (busy-polling rings)
 * </pre>
 */
public final class RawBlast {
    public static final int ETHERTYPE = 0x88B5;
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int BATCH = 64;

    private RawBlast() {
    }

    /** Result of one sender run. */
    public record TxResult(long frames, long nanos, long ringFullSpins) {
        public double framesPerSecond() {
            return frames * 1e9 / nanos;
        }
    }

    /** Result of one receiver run (timed from first to last frame). */
    public record RxResult(long frames, long bytes, long nanos, PacketStatistics stats) {
        public double framesPerSecond() {
            return nanos == 0 ? 0 : frames * 1e9 / nanos;
        }

        public double gbitPerSecond() {
            return nanos == 0 ? 0 : bytes * 8.0 / nanos;
        }
    }

    /** Sends {@code frames} frames of {@code size} bytes to {@code dst} as fast as the TX ring allows. */
    public static TxResult blast(AfPacketSocket tx, byte[] dst, byte[] src, long frames, int size) {
        return blast(tx, dst, src, frames, Long.MAX_VALUE, size);
    }

    /**
     * Sends frames of {@code size} bytes to {@code dst} as fast as the TX ring allows, until {@code frames} went out
     * or {@code nanos} passed (checked once per batch).
     */
    public static TxResult blast(AfPacketSocket tx, byte[] dst, byte[] src, long frames, long nanos, int size) {
        if (size < 60 || size > tx.txMaxFrameLength()) {
            throw new IllegalArgumentException("size must be in [60, " + tx.txMaxFrameLength() + "], got " + size);
        }
        MemorySegment ring = tx.txBuffer();
        long spins = 0;
        long start = System.nanoTime();
        int inBatch = 0;
        for (long seq = 0; seq < frames; ) {
            int slot = tx.txAcquire();
            if (slot < 0) {
                tx.flush();
                inBatch = 0;
                spins++;
                if (tx.txAcquire() < 0) {
                    tx.pollOut(1);
                }
                continue;
            }
            long off = tx.txDataOffset(slot);
            MemorySegment.copy(dst, 0, ring, JAVA_BYTE, off, 6);
            MemorySegment.copy(src, 0, ring, JAVA_BYTE, off + 6, 6);
            ring.set(BE_SHORT, off + 12, (short) ETHERTYPE);
            ring.set(BE_INT, off + 14, (int) seq);
            tx.txCommit(slot, size);
            seq++;
            if (++inBatch == BATCH) {
                tx.flush();
                inBatch = 0;
                if (nanos != Long.MAX_VALUE && System.nanoTime() - start >= nanos) {
                    frames = seq;
                }
            }
        }
        tx.flush(true);
        while (!tx.txIdle()) {
            tx.flush(true);
        }
        return new TxResult(frames, System.nanoTime() - start, spins);
    }

    /**
     * The baseline beside a benchmark: in an existing veth pair ({@code ifA} in namespace {@code nsA}, {@code ifB} in
     * {@code nsB}), a receiver thread in {@code nsB} counts what the calling thread (moved into {@code nsA} for the
     * call) sends for {@code nanos}. Returns the receiver's result (frames delivered, first to last).
     *
     * @param txSlots the TX ring's slot count: the benchmarked link's, since a ring that fits the cache is worth
     *                ~10 % here (a 32 MB ring made each frame's copy out of its slot miss)
     */
    public static RxResult vethBaseline(String nsA, String ifA, String nsB, String ifB, int size, long nanos, int txSlots)
            throws Exception {
        int mtu = Netns.call(nsA, () -> NetInterface.lookup(ifA).mtu());
        AfPacketOptions rxOpts = AfPacketOptions.forMtu(mtu).protocol(ETHERTYPE).noTxRing().rxRing(1 << 20, 64, 2048, 1);
        AfPacketOptions txSized = AfPacketOptions.forMtu(mtu).protocol(0).noRxRing().sendBuffer(16 << 20).txSlots(txSlots);
        AfPacketSocket rx = Netns.call(nsB, () -> AfPacketSocket.open(ifB, rxOpts));
        try (rx; AfPacketSocket tx = Netns.call(nsA, () -> AfPacketSocket.open(ifA, txSized))) {
            byte[] dst = Netns.call(nsB, () -> NetInterface.lookup(ifB).mac());
            byte[] src = Netns.call(nsA, () -> NetInterface.lookup(ifA).mac());
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch ready = new CountDownLatch(1);
            RxResult[] rr = new RxResult[1];
            Thread receiver = Thread.ofPlatform().name("blast-rx").start(() -> {
                ready.countDown();
                rr[0] = count(rx, Long.MAX_VALUE, stop, 200);
            });
            ready.await();
            blast(tx, dst, src, Long.MAX_VALUE, nanos, size);
            stop.set(true);
            receiver.join();
            return rr[0];
        }
    }

    /** Counts frames of {@link #ETHERTYPE} until {@code expected} arrived, or {@code idleMs} passed without any after {@code stop}. */
    public static RxResult count(AfPacketSocket rx, long expected, AtomicBoolean stop, int idleMs) {
        long[] acc = new long[3]; // frames, bytes, last timestamp
        long first = 0;
        long lastProgress = System.nanoTime();
        FrameHandler h = f -> {
            acc[0]++;
            acc[1] += f.wireLength();
            acc[2] = System.nanoTime();
        };
        while (acc[0] < expected) {
            long before = acc[0];
            if (rx.receive(h) == 0) {
                rx.pollIn(1);
            }
            if (acc[0] != before) {
                if (before == 0) {
                    first = System.nanoTime();
                }
                lastProgress = System.nanoTime();
            } else if (stop.get() && System.nanoTime() - lastProgress > idleMs * 1_000_000L) {
                break;
            }
        }
        return new RxResult(acc[0], acc[1], acc[0] == 0 ? 0 : acc[2] - first, rx.statistics());
    }

    /** Sender + receiver over a veth pair between two fresh namespaces. */
    public static void vethRun(long frames, int size, int mtu, boolean bypass) throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("blasta");
            String b = t.namespace("blastb");
            t.veth(a, "bl0", b, "bl1", Topology.LinkOptions.mtu(mtu));
            t.disableIpv6(a);
            t.disableIpv6(b);
            AfPacketOptions rxOpts = AfPacketOptions.forMtu(mtu).protocol(ETHERTYPE).noTxRing()
                    .rxRing(1 << 20, 64, 2048, 1);
            AfPacketOptions txOpts = AfPacketOptions.forMtu(mtu).protocol(0).noRxRing().qdiscBypass(bypass)
                    .sendBuffer(16 << 20);
            AfPacketOptions txSized = txOpts.txRing(txOpts.txFrameSize, Math.max(512, (32 << 20) / txOpts.txFrameSize));
            AfPacketSocket rx = Netns.call(b, () -> AfPacketSocket.open("bl1", rxOpts));
            AfPacketSocket tx = Netns.call(a, () -> AfPacketSocket.open("bl0", txSized));
            byte[] dst = Netns.call(b, () -> NetInterface.lookup("bl1").mac());
            byte[] src = Netns.call(a, () -> NetInterface.lookup("bl0").mac());
            try (rx; tx) {
                AtomicBoolean stop = new AtomicBoolean();
                CountDownLatch ready = new CountDownLatch(1);
                RxResult[] rr = new RxResult[1];
                Thread receiver = Thread.ofPlatform().name("blast-rx").start(() -> {
                    ready.countDown();
                    rr[0] = count(rx, frames, stop, 500);
                });
                ready.await();
                TxResult tr = blast(tx, dst, src, frames, size);
                stop.set(true);
                receiver.join();
                print(size, mtu, bypass, tr, rr[0]);
            }
        }
    }

    /**
     * Ping-pong over a veth pair between two fresh namespaces: the echo thread sends every frame back;
     * prints RTT percentiles. Shows the RX ring format's latency (V3 waits for a block to retire).
     */
    public static void pingPong(int rounds, int size, AfPacketOptions.Version version) throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("pinga");
            String b = t.namespace("pingb");
            t.veth(a, "pp0", b, "pp1", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(a);
            t.disableIpv6(b);
            AfPacketOptions o = AfPacketOptions.defaults().version(version).protocol(ETHERTYPE)
                    .rxRing(1 << 16, 16, 2048, 1).txRing(2048, 64);
            AfPacketSocket pinger = Netns.call(a, () -> AfPacketSocket.open("pp0", o));
            AfPacketSocket echo = Netns.call(b, () -> AfPacketSocket.open("pp1", o));
            byte[] ma = Netns.call(a, () -> NetInterface.lookup("pp0").mac());
            byte[] mb = Netns.call(b, () -> NetInterface.lookup("pp1").mac());
            try (pinger; echo) {
                AtomicBoolean stop = new AtomicBoolean();
                Thread echoer = Thread.ofPlatform().daemon().name("pingpong-echo").start(() -> {
                    FrameHandler back = f -> {
                        int slot;
                        while ((slot = echo.txAcquire()) < 0) {
                            echo.flush();
                        }
                        MemorySegment.copy(f.buffer(), f.offset(), echo.txBuffer(), echo.txDataOffset(slot), f.length());
                        MemorySegment.copy(ma, 0, echo.txBuffer(), JAVA_BYTE, echo.txDataOffset(slot), 6);
                        echo.txCommit(slot, f.length());
                    };
                    while (!stop.get()) {
                        if (echo.receive(back) > 0) {
                            echo.flush();
                        }
                    }
                });
                long[] rtt = new long[rounds];
                int[] got = new int[1];
                FrameHandler h = f -> got[0]++;
                for (int r = 0; r < rounds; r++) {
                    int slot;
                    while ((slot = pinger.txAcquire()) < 0) {
                        pinger.flush();
                    }
                    long off = pinger.txDataOffset(slot);
                    MemorySegment.copy(mb, 0, pinger.txBuffer(), JAVA_BYTE, off, 6);
                    MemorySegment.copy(ma, 0, pinger.txBuffer(), JAVA_BYTE, off + 6, 6);
                    pinger.txBuffer().set(BE_SHORT, off + 12, (short) ETHERTYPE);
                    pinger.txBuffer().set(BE_INT, off + 14, r);
                    long t0 = System.nanoTime();
                    pinger.txCommit(slot, size);
                    pinger.flush();
                    got[0] = 0;
                    long giveUp = t0 + 1_000_000_000L;
                    while (got[0] == 0 && System.nanoTime() < giveUp) {
                        pinger.receive(h);
                    }
                    rtt[r] = System.nanoTime() - t0;
                }
                stop.set(true);
                echoer.join();
                java.util.Arrays.sort(rtt);
                System.out.printf(Locale.ROOT, "pingpong %s, %d B, %d rounds: RTT p50 %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us%n",
                        version, size, rounds, rtt[rounds / 2] / 1e3, rtt[rounds * 9 / 10] / 1e3,
                        rtt[Math.min(rounds - 1, rounds * 99 / 100)] / 1e3, rtt[rounds - 1] / 1e3);
            }
        }
    }

    private static void print(int size, int mtu, boolean bypass, TxResult tr, RxResult rr) {
        System.out.printf(Locale.ROOT, "frame %d B, mtu %d, qdisc-bypass %s%n", size, mtu, bypass);
        System.out.printf(Locale.ROOT, "tx: %d frames in %.3f s = %.0f frames/s (%.2f Gbit/s), ring-full waits %d%n",
                tr.frames(), tr.nanos() / 1e9, tr.framesPerSecond(), tr.framesPerSecond() * size * 8 / 1e9, tr.ringFullSpins());
        if (rr != null) {
            System.out.printf(Locale.ROOT, "rx: %d frames (%.2f %%) in %.3f s = %.0f frames/s (%.2f Gbit/s), socket stats %s%n",
                    rr.frames(), 100.0 * rr.frames() / tr.frames(), rr.nanos() / 1e9, rr.framesPerSecond(),
                    rr.gbitPerSecond(), rr.stats());
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
            return;
        }
        switch (args[0]) {
            case "veth" -> vethRun(args.length > 1 ? Long.parseLong(args[1]) : 1_000_000,
                    args.length > 2 ? Integer.parseInt(args[2]) : 64,
                    args.length > 3 ? Integer.parseInt(args[3]) : 1500,
                    args.length > 4 && args[4].equals("bypass"));
            case "tx" -> {
                if (args.length < 4) {
                    usage();
                    return;
                }
                int size = Integer.parseInt(args[3]);
                boolean bypass = args.length > 4 && args[4].equals("bypass");
                int mtu = NetInterface.lookup(args[1]).mtu();
                AfPacketOptions o = AfPacketOptions.forMtu(mtu).protocol(0).noRxRing().qdiscBypass(bypass);
                try (AfPacketSocket tx = AfPacketSocket.open(args[1], o)) {
                    byte[] src = NetInterface.lookup(args[1]).mac();
                    byte[] dst = {-1, -1, -1, -1, -1, -1};
                    print(size, mtu, bypass, blast(tx, dst, src, Long.parseLong(args[2]), size), null);
                }
            }
            case "rx" -> {
                if (args.length < 3) {
                    usage();
                    return;
                }
                int mtu = NetInterface.lookup(args[1]).mtu();
                try (AfPacketSocket rx = AfPacketSocket.open(args[1],
                        AfPacketOptions.forMtu(mtu).protocol(ETHERTYPE).noTxRing().rxRing(1 << 20, 64, 2048, 1))) {
                    AtomicBoolean stop = new AtomicBoolean();
                    Thread.ofPlatform().daemon().start(() -> {
                        try {
                            Thread.sleep(Long.parseLong(args[2]) * 1000);
                        } catch (InterruptedException ignored) {
                            // stop anyway
                        }
                        stop.set(true);
                    });
                    RxResult r = count(rx, Long.MAX_VALUE, stop, 0);
                    System.out.printf(Locale.ROOT, "rx: %d frames, %.0f frames/s, %.2f Gbit/s, stats %s%n",
                            r.frames(), r.framesPerSecond(), r.gbitPerSecond(), r.stats());
                }
            }
            case "pingpong" -> pingPong(args.length > 1 ? Integer.parseInt(args[1]) : 10_000,
                    args.length > 2 ? Integer.parseInt(args[2]) : 64,
                    args.length > 3 ? AfPacketOptions.Version.valueOf(args[3]) : AfPacketOptions.Version.V2);
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: RawBlast veth [frames] [size] [mtu] [bypass]\n"
                + "       RawBlast tx IFACE frames size [bypass]\n"
                + "       RawBlast rx IFACE seconds\n"
                + "       RawBlast pingpong [rounds] [size] [V2|V3]");
    }
}
