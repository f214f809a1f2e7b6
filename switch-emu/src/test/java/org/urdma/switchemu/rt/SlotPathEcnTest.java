package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.sim.Frames;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one-copy output path: a port that lends its TX memory gets frames written straight into it by the
 * core — whole, ECN-marked in place with a valid IPv4 header checksum — and PFC still goes out through it.
 */
class SlotPathEcnTest {
    /** Lends a slot in a preallocated buffer (like a TX ring); committed frames are copied out for the test. */
    static final class SlotPort implements FramePort {
        final UnsafeBuffer ring = new UnsafeBuffer(new byte[16 * 1024]);
        final List<byte[]> out = new ArrayList<>();
        final List<byte[]> in = new ArrayList<>();
        int claims;
        int sends;

        @Override
        public int receive(Receiver receiver, int limit) {
            int n = in.size();
            for (byte[] f : in) {
                receiver.onFrame(new UnsafeBuffer(f), 0, f.length);
            }
            in.clear();
            return n;
        }

        @Override
        public MutableDirectBuffer claim(int length) {
            claims++;
            return ring;
        }

        @Override
        public int claimedOffset() {
            return 100;
        }

        @Override
        public void commit(int length) {
            byte[] f = new byte[length];
            ring.getBytes(100, f);
            out.add(f);
        }

        @Override
        public boolean send(DirectBuffer buffer, int offset, int length) {
            sends++;
            byte[] f = new byte[length];
            buffer.getBytes(offset, f);
            out.add(f);
            return true;
        }
    }

    private static int ipChecksum(byte[] f, int ip) {
        long sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((f[ip + i] & 0xFF) << 8) | (f[ip + i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    @Test
    void framesAreWrittenIntoTheLentSlotAndMarkedThere() {
        long a = 0x02_00_00_00_00_0AL;
        long b = 0x02_00_00_00_00_0BL;
        SlotPort pa = new SlotPort();
        SlotPort pb = new SlotPort();
        SwitchConfig c = new SwitchConfig().pipelineDelayNs(0);
        // slow egress, ECN on priority 0 from 1 byte to 2 KB of queue: a backlog means certain marking
        c.port(new PortConfig().rateBps(1_000_000_000L).ecn(0x01, 1, 2_000, 1.0).classify(org.urdma.switchemu.core.ClassifyMode.DEFAULT));
        c.port(new PortConfig().rateBps(1_000_000_000L).ecn(0x01, 1, 2_000, 1.0).classify(org.urdma.switchemu.core.ClassifyMode.DEFAULT));
        long[] clock = {1_000_000_000L};
        RtSwitch sw = new RtSwitch("t", c, List.of(new RtSwitch.PortSpec("a", null, pa, null, null),
            new RtSwitch.PortSpec("b", null, pb, null, null)), RtOptions.defaults(), () -> clock[0]);
        sw.core().addStaticMac(b, 1);
        for (int i = 0; i < 20; i++) {
            pa.in.add(Frames.ipv4Udp(b, a, -1, 0, 0b10, 1000));
        }
        for (int i = 0; i < 2_000; i++) {
            clock[0] += 1_000;
            sw.doWork();
        }
        assertEquals(20, pb.out.size());
        assertEquals(0, pb.sends, "all through the lent slot");
        int marked = 0;
        for (byte[] f : pb.out) {
            assertEquals(1000, f.length);
            assertEquals(0, ipChecksum(f, 14), "IPv4 header checksum still valid");
            if ((f[15] & 0x3) == 0b11) {
                marked++;
            }
        }
        assertTrue(marked >= 15, "frames leaving a backlog above kmax are CE: " + marked);
        assertEquals(marked, sw.core().counters(1).ecnMarked);
    }
}
