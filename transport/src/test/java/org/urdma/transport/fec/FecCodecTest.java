package org.urdma.transport.fec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.FecEth;
import org.urdma.transport.wire.Psn;

class FecCodecTest {
    static final int MAX = 4096;

    /** One group's packets as sent: data i at PSN base + i, then the r parities with their FEC-ETH. */
    static final class Sent {
        final int base;
        final int m;
        final int r;
        final byte[][] data;
        final byte[][] parity;
        final UnsafeBuffer[] eth;

        Sent(int base, int m, int r, SplittableRandom rnd) {
            this.base = base;
            this.m = m;
            this.r = r;
            data = new byte[m][];
            FecEncoder e = new FecEncoder(MAX, 32);
            e.start(base, m, r);
            for (int i = 0; i < m; i++) {
                data[i] = new byte[1 + rnd.nextInt(MAX)]; // lengths differ: the length XOR must rebuild them
                rnd.nextBytes(data[i]);
                boolean last = e.add(Psn.add(base, i), new UnsafeBuffer(data[i]), 0, data[i].length);
                assertEquals(i == m - 1, last);
            }
            parity = new byte[r][];
            eth = new UnsafeBuffer[r];
            for (int j = 0; j < r; j++) {
                parity[j] = new byte[e.parityLength(j)];
                e.parity(j).getBytes(0, parity[j]);
                eth[j] = new UnsafeBuffer(new byte[FecEth.LENGTH]);
                e.putFecEth(eth[j], 0, j);
            }
        }

        int data(FecDecoder d, int i) {
            return d.onData(Psn.add(base, i), new UnsafeBuffer(data[i]), 0, data[i].length);
        }

        int parity(FecDecoder d, int j) {
            UnsafeBuffer h = eth[j];
            return d.onParity(FecEth.basePsn(h, 0), FecEth.m(h, 0), FecEth.r(h, 0), FecEth.index(h, 0),
                    FecEth.lengthXor(h, 0), new UnsafeBuffer(parity[j]), 0, parity[j].length);
        }
    }

    static byte[] recovered(FecDecoder d) {
        byte[] b = new byte[d.recoveredLength()];
        d.recovered().getBytes(0, b);
        return b;
    }

    @Test
    void aSingleLossInEveryStripeIsRebuiltByteExactWhateverTheArrivalOrder() {
        SplittableRandom rnd = new SplittableRandom(11);
        int base = Psn.MASK - 20; // the group wraps the PSN space
        Sent s = new Sent(base, 40, 4, rnd);
        FecDecoder d = new FecDecoder(MAX, 32, 4);
        d.expect(base, 40, 4);
        // lose one packet per stripe (5, 10, 23, 36: stripes 1, 2, 3, 0); deliver the rest and the parities shuffled
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 40; i++) if (i != 5 && i != 10 && i != 23 && i != 36) order.add(i);
        for (int j = 0; j < 4; j++) order.add(-1 - j);
        Collections.shuffle(order, new java.util.Random(3));
        List<Integer> rebuilt = new ArrayList<>();
        for (int x : order) {
            int res = x >= 0 ? s.data(d, x) : s.parity(d, -1 - x);
            if (res == FecDecoder.RECOVERED) {
                int i = Psn.diff(d.recoveredPsn(), base);
                rebuilt.add(i);
                assertArrayEquals(s.data[i], recovered(d), "packet " + i + " rebuilt byte for byte, at its length");
            }
        }
        Collections.sort(rebuilt);
        assertEquals(List.of(5, 10, 23, 36), rebuilt);
        assertEquals(FecDecoder.IGNORED, s.data(d, 10), "a late original after its rebuild is a duplicate");
        d.flush();
        assertEquals(0, d.unrepairedPackets());
        assertEquals(4, d.recoveredCount());
    }

    @Test
    void twoLossesInOneStripeAreUnrecoverableAndLeftToSack() {
        SplittableRandom rnd = new SplittableRandom(12);
        Sent s = new Sent(1000, 12, 3, rnd);
        FecDecoder d = new FecDecoder(MAX, 32, 4);
        d.expect(1000, 12, 3);
        // stripe 1 = packets 1, 4, 7, 10: lose 4 and 7; stripe 2 loses only 8
        for (int i = 0; i < 12; i++) if (i != 4 && i != 7 && i != 8) assertEquals(FecDecoder.ACCEPTED, s.data(d, i));
        assertEquals(FecDecoder.ACCEPTED, s.parity(d, 0));
        assertEquals(FecDecoder.ACCEPTED, s.parity(d, 1), "stripe 1 misses two: nothing to rebuild");
        assertEquals(FecDecoder.RECOVERED, s.parity(d, 2));
        assertEquals(1008, d.recoveredPsn());
        assertArrayEquals(s.data[8], recovered(d));
        assertEquals(1, d.unrecoverable(1000));
        d.flush();
        assertEquals(1, d.unrecoverableStripes());
        assertEquals(2, d.unrepairedPackets(), "PSNs 1004 and 1007 go to SACK");
    }

    @Test
    void consecutiveGroupsWithParityArrivingAmidTheNextGroupsDataAreEachRepaired() {
        SplittableRandom rnd = new SplittableRandom(13);
        FecDecoder d = new FecDecoder(MAX, 32, 3);
        d.expect(0, 8, 2);
        int rebuilt = 0;
        Sent prev = null;
        for (int g = 0; g < 20; g++) {
            Sent s = new Sent(g * 8, 8, 2, rnd);
            int lose = g % 8;
            for (int i = 0; i < 8; i++) if (i != lose) s.data(d, i);
            if (prev != null) { // the previous group's parity comes late
                rebuilt += prev.parity(d, 0) == FecDecoder.RECOVERED ? 1 : 0;
                rebuilt += prev.parity(d, 1) == FecDecoder.RECOVERED ? 1 : 0;
            }
            prev = s;
        }
        assertEquals(19, rebuilt);
    }

    @Test
    void aNewGeometryRealignsTheDecoderAndNeverRebuildsWrongBytes() {
        SplittableRandom rnd = new SplittableRandom(14);
        FecDecoder d = new FecDecoder(MAX, 32, 4);
        d.expect(0, 8, 2); // the receiver assumes 8/2, the sender uses 10/5 from the start
        Sent a = new Sent(0, 10, 5, rnd);
        for (int i = 1; i < 10; i++) a.data(d, i);
        for (int j = 0; j < 5; j++) assertTrue(a.parity(d, j) != FecDecoder.RECOVERED, "group accumulated on wrong boundaries");
        assertTrue(d.discardedGroups() >= 1);
        Sent b = new Sent(10, 10, 5, rnd); // the next group is aligned
        for (int i = 0; i < 10; i++) if (i != 3) b.data(d, i);
        int res = FecDecoder.ACCEPTED;
        for (int j = 0; j < 5; j++) res = Math.max(res, b.parity(d, j));
        assertEquals(FecDecoder.RECOVERED, res);
        assertArrayEquals(b.data[3], recovered(d));
    }

    @Test
    void badGeometryIsRefusedByTheEncoderAndIgnoredByTheDecoder() {
        FecEncoder e = new FecEncoder(MAX, 4);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> e.start(0, 8, 5)).getMessage().startsWith("fec: r"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> e.start(0, 0, 1)).getMessage().startsWith("fec: m"));
        e.start(0, 4, 2);
        UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
        assertThrows(IllegalArgumentException.class, () -> e.add(1, b, 0, 8));
        FecDecoder d = new FecDecoder(MAX, 4, 2);
        assertEquals(FecDecoder.IGNORED, d.onParity(0, 4, 5, 0, 0, b, 0, 8), "r > m");
        assertEquals(FecDecoder.IGNORED, d.onParity(0, 4, 2, 2, 0, b, 0, 8), "index >= r");
        assertEquals(FecDecoder.IGNORED, d.onParity(0, 4, 2, 0, 0, b, 0, MAX + 1), "too long");
    }

    @Test
    void aDataPacketFarAheadOpensAtMostTheSlotsGroupsAndCountsThePassedOnesAsOpeningEachWould() {
        FecDecoder d = new FecDecoder(MAX, 32, 4);
        d.expect(0, 4, 2);
        UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
        assertEquals(FecDecoder.ACCEPTED, d.onData(0, b, 0, 8));
        assertEquals(1, d.groupsOpened());
        // PSN 401 is in group 100: groups 1..96 pass unopened (counted), 97..100 open in the 4 slots
        Sent s = new Sent(400, 4, 2, new SplittableRandom(5));
        assertEquals(FecDecoder.ACCEPTED, s.data(d, 1));
        assertEquals(5, d.groupsOpened(), "one group per slot, not one per group up to the PSN");
        // group 0 lost 3 (stripe 1 both: unrecoverable), groups 1..96 all 4 (both stripes of 2 each)
        assertEquals(3 + 96 * 4, d.unrepairedPackets());
        assertEquals(1 + 96 * 2, d.unrecoverableStripes());
        // the group the far packet opened is the right one: its stripe 1 (PSN 403 lost) is rebuilt from parity 1
        assertEquals(FecDecoder.ACCEPTED, s.data(d, 0));
        assertEquals(FecDecoder.ACCEPTED, s.data(d, 2));
        assertEquals(FecDecoder.RECOVERED, s.parity(d, 1));
        assertEquals(403, d.recoveredPsn());
        assertArrayEquals(s.data[3], recovered(d));
        // groups of one (as a forged parity may set): 8 million PSNs ahead still opens only the slots
        FecDecoder one = new FecDecoder(MAX, 32, 4);
        one.expect(0, 1, 1);
        assertEquals(FecDecoder.ACCEPTED, one.onData(8_000_000, b, 0, 8));
        assertEquals(4, one.groupsOpened());
        assertEquals(8_000_000 - 3, one.unrepairedPackets());
        assertEquals(0, one.unrecoverableStripes(), "a stripe of one packet is never two short");
    }
}
