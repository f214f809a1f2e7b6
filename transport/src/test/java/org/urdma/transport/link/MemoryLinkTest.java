package org.urdma.transport.link;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.Gid;

class MemoryLinkTest {
    static final byte[] MAC_A = {2, 0, 0, 0, 0, 1}, MAC_B = {2, 0, 0, 0, 0, 2};

    static MemoryLink[] pair(ImpairmentConfig ab) {
        return MemoryLink.pair(MemoryLink.Config.defaults().withLatency(100),
                new LinkFraming(FramingKind.ROCE2, MAC_A, Gid.fromMac(MAC_A).toBytes()),
                new LinkFraming(FramingKind.ROCE2, MAC_B, Gid.fromMac(MAC_B).toBytes()), ab, ImpairmentConfig.none());
    }

    static List<Integer> sendAndCollect(MemoryLink[] l, int n) {
        UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        List<Integer> got = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < n; i++) {
            payload.putInt(0, i);
            // RC SEND_ONLY
            assertTrue(TestPackets.send(l[0], TestPackets.routeTo(MAC_B), 0x04, 0x12, i, payload, 256, now));
            now += 10;
            l[0].flush(now);
            l[1].receive(now, (q, t) -> {
                assertEquals(q.psn(), q.payload().getInt(q.payloadOffset()), "payload travels with its header");
                got.add(q.psn());
            }, 100);
        }
        for (int k = 0; k < 100; k++) {
            now += 100_000;
            l[0].flush(now);
            l[1].receive(now, (q, t) -> got.add(q.psn()), 100);
        }
        return got;
    }

    @Test
    void framesArriveInOrderAfterTheLatencyAndNotBefore() {
        MemoryLink[] l = pair(ImpairmentConfig.none());
        assertTrue(TestPackets.send(l[0], TestPackets.routeTo(MAC_B), 0x11, 5, 77, null, 0, 1000));
        int[] n = {0};
        assertEquals(0, l[1].receive(1099, (q, t) -> n[0]++, 10));
        assertEquals(1, l[1].receive(1100, (q, t) -> { n[0]++; assertEquals(77, q.psn()); }, 10));
        assertEquals(1, n[0]);
        assertEquals(List.of(0, 1, 2, 3, 4), sendAndCollect(pair(ImpairmentConfig.none()), 5));
    }

    @Test
    void aPayloadStartsOnACacheLineInTheReceiversSlotSoBothCopiesRunAligned() {
        MemoryLink[] l = pair(ImpairmentConfig.none());
        UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        List<Long> misalignment = new ArrayList<>();
        for (int opcode : new int[] {0x04, 0x0A, 0x06, 0x07}) { // SEND_ONLY, WRITE_ONLY (RETH), WRITE_FIRST, WRITE_MIDDLE
            assertTrue(TestPackets.send(l[0], TestPackets.routeTo(MAC_B), opcode, 0x12, opcode, payload, 4096, 0));
        }
        assertEquals(4, l[1].receive(1_000, (q, t) -> {
            assertEquals(4096, q.payloadLength());
            misalignment.add((q.payload().addressOffset() + q.payloadOffset()) & 63);
        }, 10));
        assertEquals(List.of(0L, 0L, 0L, 0L), misalignment);
    }

    @Test
    void impairmentIsSeededAndDoesWhatItSays() {
        ImpairmentConfig imp = ImpairmentConfig.none().lossRandom(0.05, 0).duplicate(0.05, 0).delay(1_000, 0, 0)
                .reorder(0.05, 0, 1).seed(99);
        List<Integer> a = sendAndCollect(pair(imp), 2000);
        List<Integer> b = sendAndCollect(pair(imp), 2000);
        assertEquals(a, b, "same seed, same outcome");
        long distinct = a.stream().distinct().count();
        assertTrue(distinct < 2000 && distinct > 1800, "about 5% lost: " + distinct);
        assertTrue(a.size() > distinct, "duplicates present");
        boolean reordered = false;
        for (int i = 1; i < a.size(); i++) reordered |= a.get(i) < a.get(i - 1);
        assertTrue(reordered);
    }

    @Test
    void corruptedFramesFailTheIcrcAndAreCountedNotDelivered() {
        MemoryLink[] l = pair(ImpairmentConfig.none().corrupt(0.2, 0).seed(5));
        List<Integer> got = sendAndCollect(l, 1000);
        assertTrue(l[0].corruptedFrames() > 150);
        // the ICRC and IP checksum catch everything but flips in the (unchecked, zero) UDP checksum field
        assertTrue(l[1].malformedFrames() >= l[0].corruptedFrames() * 97 / 100, l[1].malformedFrames() + " of " + l[0].corruptedFrames());
        assertEquals(1000 - l[1].malformedFrames(), got.size());
    }

    @Test
    void dropEveryNthIsDeterministic() {
        MemoryLink[] l = pair(ImpairmentConfig.dropEvery(4));
        List<Integer> got = sendAndCollect(l, 12);
        assertEquals(List.of(0, 1, 2, 4, 5, 6, 8, 9, 10), got);
    }

    @Test
    void badImpairmentNamesTheField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pair(ImpairmentConfig.random(1.5, 0, 0, 1)));
        assertTrue(e.getMessage().startsWith("impairment loss:"), e.getMessage());
    }

    @Test
    void delayAndJitterReleaseFramesInTimeOrderEachAtItsOwnTime() {
        // 20 µs ± 10 µs on frames 1 µs apart: netem's time-ordered queue overtakes by up to 20 frames
        ImpairmentConfig c = ImpairmentConfig.none().delay(20_000, 10_000, 0).seed(42);
        Impairment model = new Impairment(c, new SplittableRandom(42));
        int n = 500;
        long[] arrival = new long[n];
        for (int i = 0; i < n; i++) arrival[i] = model.offer(i * 1_000L, 0).releaseAt[0] + 100; // + link latency
        MemoryLink[] l = pair(c);
        UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        List<Integer> order = new ArrayList<>();
        int sent = 0;
        for (long now = 0; order.size() < n; now += 50) {
            if (sent < n && now == sent * 1_000L) {
                assertTrue(TestPackets.send(l[0], TestPackets.routeTo(MAC_B), 0x04, 0x12, sent++, payload, 64, now));
            }
            l[0].flush(now);
            long t = now;
            l[1].receive(now, (q, at) -> {
                long due = arrival[q.psn()];
                assertTrue(due <= t && t < due + 50, "frame " + q.psn() + " due at " + due + " arrived at " + t);
                order.add(q.psn());
            }, 100);
            assertTrue(now < 10_000_000, "all frames arrive");
        }
        List<Integer> byTime = IntStream.range(0, n).boxed()
                .sorted(Comparator.<Integer>comparingLong(i -> arrival[i]).thenComparingInt(i -> i)).toList();
        assertEquals(byTime, order, "frames leave in release-time order");
        assertNotEquals(IntStream.range(0, n).boxed().toList(), order, "jitter reorders");
    }

    @Test
    void anImpairedLinkAllocatesNothingPerFrame() {
        ImpairmentConfig c = ImpairmentConfig.none().delay(5_000, 2_000, 0.2).lossGilbertElliott(0.01, 0.3, 0.5, 0.001)
                .duplicate(0.02, 0).reorder(0.02, 0, 3).corrupt(0.01, 0).seed(7);
        MemoryLink[] l = pair(c);
        UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        Route route = TestPackets.routeTo(MAC_B);
        PacketSink sink = (p, t) -> { };
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long now = 0;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 20; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 5_000; i++) {
                now += 500;
                TestPackets.send(l[0], route, 0x04, 0x12, i, payload, 256, now);
                l[0].flush(now);
                l[1].receive(now, sink, 100);
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertTrue(l[0].lostFrames() > 0 && l[0].duplicatedFrames() > 0 && l[0].reorderedFrames() > 0, "exercised");
        assertTrue(best < 1024, best + " bytes allocated for 5000 impaired frames");
    }
}
