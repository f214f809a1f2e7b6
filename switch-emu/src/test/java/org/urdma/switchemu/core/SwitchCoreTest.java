package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.frame.FrameView;
import org.urdma.switchemu.frame.Mac;
import org.urdma.transport.wire.MacControlFrame;
import org.urdma.switchemu.frame.PortFormat;
import org.urdma.switchemu.sim.Frames;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SwitchCore driven directly under a hand-advanced clock. */
class SwitchCoreTest {
    private static final long RATE = 10_000_000_000L;
    private static final long A = 0x02_00_00_00_00_0AL;
    private static final long B = 0x02_00_00_00_00_0BL;
    private static final long C = 0x02_00_00_00_00_0CL;

    private record Sent(int port, long start, long end, byte[] frame) {
        boolean isPfc() {
            return ((frame[12] & 0xFF) << 8 | (frame[13] & 0xFF)) == FrameView.ETHERTYPE_MAC_CONTROL;
        }

        int pcp() {
            return (frame[14] & 0xFF) >>> 5;
        }

        int pfcEnable() {
            return MacControlFrame.classEnable(new UnsafeBuffer(frame), 0);
        }

        int pfcTime(int p) {
            return MacControlFrame.pfcQuanta(new UnsafeBuffer(frame), 0, p);
        }
    }

    private final List<Sent> sent = new ArrayList<>();
    private SwitchCore core;
    private long now;

    private SwitchCore core(int ports, Consumer<SwitchConfig> sw, Consumer<PortConfig> port) {
        SwitchConfig c = new SwitchConfig();
        for (int i = 0; i < ports; i++) {
            PortConfig p = new PortConfig().mac(0x02_00_00_00_F0_00L + i).rateBps(RATE);
            port.accept(p);
            c.port(p);
        }
        sw.accept(c);
        core = new SwitchCore(c, this::record, new SplittableRandom(1));
        return core;
    }

    private void record(int port, DirectBuffer buffer, int offset, int length, long start, long end) {
        byte[] f = new byte[length];
        buffer.getBytes(offset, f);
        sent.add(new Sent(port, start, end, f));
    }

    private void in(int port, byte[] frame) {
        core.onFrame(port, new UnsafeBuffer(frame), 0, frame.length, now);
    }

    /** Polls at every time the core asks for, up to {@code until}. */
    private void runUntil(long until) {
        long next = core.poll(now);
        while (next <= until) {
            now = next;
            next = core.poll(now);
        }
        now = until;
        core.poll(now);
    }

    private byte[] pfc(int enable, int... times) {
        byte[] f = new byte[60];
        int[] t = new int[8];
        System.arraycopy(times, 0, t, 0, times.length);
        MacControlFrame.putPfc(new UnsafeBuffer(f), 0, C, enable, t);
        return f;
    }

    private List<Sent> data(int port) {
        return sent.stream().filter(s -> s.port == port && !s.isPfc()).toList();
    }

    @Test
    void strictPriorityFirstThenDwrrByWeight() {
        core(3, c -> c.bufferBytes(8_000_000).dtAlpha(16).maxFrameBytes(1518), p -> p.strictMask(0x80).weight(0, 1).weight(1, 3));
        core.addStaticMac(B, 1);
        for (int i = 0; i < 300; i++) {
            in(0, Frames.ethernet(B, A, 0, 0x88B6, 1000));
            in(0, Frames.ethernet(B, A, 1, 0x88B6, 1000));
            if (i < 50) {
                in(0, Frames.ethernet(B, A, 7, 0x88B6, 1000));
            }
        }
        runUntil(1_000_000_000);
        List<Sent> out = data(1);
        assertEquals(650, out.size());
        for (int i = 0; i < 50; i++) {
            assertEquals(7, out.get(i).pcp(), "strict priority 7 drains first");
        }
        long p0 = 0;
        long p1 = 0;
        for (int i = 50; i < 50 + 200; i++) {
            if (out.get(i).pcp() == 0) {
                p0++;
            } else {
                p1++;
            }
        }
        assertEquals(3.0, p1 / (double) p0, 0.1, "DWRR shares 1:3 while both are backlogged");
    }

    @Test
    void receivedPfcPausesOnlyThatPriorityForItsQuantaAndZeroResumes() {
        core(2, c -> { }, p -> p.pfcMask(0x08));
        core.addStaticMac(B, 1);
        in(1, pfc(0x08, 0, 0, 0, 1000));
        long pauseEnd = now + MacControlFrame.quantaToNanos(1000, RATE);
        in(0, Frames.ethernet(B, A, 3, 0x88B6, 500));
        in(0, Frames.ethernet(B, A, 0, 0x88B6, 500));
        runUntil(pauseEnd - 1);
        assertEquals(1, data(1).size(), "priority 0 flows, 3 is paused");
        assertEquals(0, data(1).get(0).pcp());
        runUntil(pauseEnd + 10_000);
        assertEquals(2, data(1).size());
        assertEquals(pauseEnd, data(1).get(1).start, "resumes exactly when the quanta expire");
        assertEquals(1, core.counters(1).pfcRx[3]);

        in(1, pfc(0x08, 0, 0, 0, 0xFFFF));
        in(0, Frames.ethernet(B, A, 3, 0x88B6, 500));
        runUntil(now + 100_000);
        assertEquals(2, data(1).size());
        in(1, pfc(0x08, 0, 0, 0, 0));
        long xon = now;
        runUntil(now + 100_000);
        assertEquals(3, data(1).size());
        assertEquals(xon, data(1).get(2).start, "time 0 resumes at once");
    }

    @Test
    void pfcForAPriorityThePortDoesNotRunLosslessIsCountedButIgnored() {
        core(2, c -> { }, p -> p.pfcMask(0x08));
        core.addStaticMac(B, 1);
        in(1, pfc(0x01, 0xFFFF));
        in(0, Frames.ethernet(B, A, 0, 0x88B6, 500));
        runUntil(100_000);
        assertEquals(1, data(1).size());
        assertEquals(1, core.counters(1).pfcRx[0]);
    }

    @Test
    void pause8023xStopsEveryPriority() {
        core(2, c -> { }, p -> { });
        core.addStaticMac(B, 1);
        byte[] pause = new byte[60];
        MacControlFrame.putPause(new UnsafeBuffer(pause), 0, C, 500);
        in(1, pause);
        in(0, Frames.ethernet(B, A, 0, 0x88B6, 500));
        in(0, Frames.ethernet(B, A, 6, 0x88B6, 500));
        long end = MacControlFrame.quantaToNanos(500, RATE);
        runUntil(end - 1);
        assertEquals(0, data(1).size());
        runUntil(end + 10_000);
        assertEquals(2, data(1).size());
        assertEquals(1, core.counters(1).pauseRx);
    }

    @Test
    void mmuSendsXoffAtTheDynamicThresholdAbsorbsInHeadroomDropsBeyondAndXonsWithTheResumeOffset() {
        long buffer = 100_000;
        long reserve = 1_000;
        long headroom = 10_000;
        long offset = 3_000;
        core(2, c -> c.bufferBytes(buffer).reserveBytes(reserve).dtAlpha(1).resumeOffsetBytes(offset),
            p -> p.pfcMask(0x08).headroomBytes(headroom));
        core.addStaticMac(B, 1);
        in(1, pfc(0x08, 0, 0, 0, 0xFFFF)); // the egress is paused: nothing drains
        long free = buffer - 2 * 8 * reserve - 2 * headroom;
        int xoffAfter = -1;
        int firstDrop = -1;
        for (int i = 1; i <= 60; i++) {
            in(0, Frames.ethernet(B, A, 3, 0x88B6, 1000));
            runUntil(now + 1_000);
            if (xoffAfter < 0 && sent.stream().anyMatch(s -> s.port == 0 && s.isPfc())) {
                xoffAfter = i;
            }
            if (firstDrop < 0 && core.counters(0).drops(DropReason.HEADROOM_EXHAUSTED) > 0) {
                firstDrop = i;
            }
        }
        // shared use s pauses when s >= α(free − s): s = free/2 with α = 1
        long sharedAtXoff = free / 2;
        assertEquals(1 + sharedAtXoff / 1000, xoffAfter, "XOFF when the shared use reaches the threshold");
        assertEquals(xoffAfter + headroom / 1000 + 1, firstDrop, "then the headroom absorbs, then drops");
        Sent xoff = sent.stream().filter(s -> s.port == 0 && s.isPfc()).findFirst().orElseThrow();
        assertEquals(0x08, xoff.pfcEnable());
        assertEquals(0xFFFF, xoff.pfcTime(3));
        assertEquals(60 - firstDrop + 1, core.counters(0).drops(DropReason.HEADROOM_EXHAUSTED));

        int before = sent.size();
        in(1, pfc(0x08, 0, 0, 0, 0));
        runUntil(now + 1_000_000);
        List<Sent> after = sent.subList(before, sent.size());
        int dequeuedBeforeXon = 0;
        Sent xon = null;
        for (Sent s : after) {
            if (s.port == 0 && s.isPfc()) {
                xon = s;
                break;
            }
            dequeuedBeforeXon++;
        }
        assertTrue(xon != null, "XON sent");
        assertEquals(0, xon.pfcTime(3));
        // headroom first, then shared down to s + offset <= α(free − s)
        long s = sharedAtXoff;
        int expected = (int) (headroom / 1000);
        while (s + offset > free - s) {
            s -= 1000;
            expected++;
        }
        assertEquals(expected, dequeuedBeforeXon);
        assertEquals(0, core.bufferUsed());
        assertEquals(1, core.counters(0).pfcXonTx[3]);
    }

    @Test
    void xoffIsRefreshedWhileCongested() {
        core(2, c -> c.bufferBytes(100_000).reserveBytes(1_000).pauseQuanta(1000), p -> p.pfcMask(0x08).headroomBytes(10_000));
        core.addStaticMac(B, 1);
        in(1, pfc(0x08, 0, 0, 0, 0xFFFF));
        for (int i = 0; i < 45; i++) {
            in(0, Frames.ethernet(B, A, 3, 0x88B6, 1000));
        }
        runUntil(MacControlFrame.quantaToNanos(1000, RATE) * 3);
        long xoffs = sent.stream().filter(s -> s.port == 0 && s.isPfc() && s.pfcTime(3) == 1000).count();
        assertTrue(xoffs >= 5, "refreshed every half pause time: " + xoffs);
    }

    @Test
    void classificationByPcpDscpDefaultAndAfhLite() {
        core(4, c -> { }, p -> { });
        SwitchConfig dscp = new SwitchConfig();
        dscp.port(new PortConfig().classify(ClassifyMode.DSCP).dscp(46, 5).defaultPriority(2));
        dscp.port(new PortConfig().classify(ClassifyMode.DEFAULT).defaultPriority(4));
        dscp.port(new PortConfig().format(PortFormat.AFH_LITE).defaultPriority(6));
        dscp.port(new PortConfig());
        core = new SwitchCore(dscp, this::record, new SplittableRandom(1));
        core.addStaticMac(B, 3);
        in(0, Frames.ipv4Udp(B, A, 1, 46, 0, 100));   // DSCP wins over PCP 1
        in(0, Frames.ethernet(B, A, 1, 0x88B6, 100)); // no IPv4: PCP
        in(0, Frames.ethernet(B, A, -1, 0x88B6, 100)); // neither: default
        in(1, Frames.ethernet(B, A, 7, 0x88B6, 100)); // DEFAULT port
        byte[] lite = new byte[100];
        Mac.write(new UnsafeBuffer(lite), 0, B);
        lite[12] = (byte) 0x81; // would read as a VLAN tag if parsed as Ethernet
        lite[14] = (byte) 0xE0;
        in(2, lite);
        assertEquals(100, core.queueBytes(3, 5));
        assertEquals(100, core.queueBytes(3, 1));
        assertEquals(100, core.queueBytes(3, 2));
        assertEquals(100, core.queueBytes(3, 4));
        assertEquals(100, core.queueBytes(3, 6));
        assertEquals(MacTable.MISS, core.macTable().lookup(Mac.read(new UnsafeBuffer(lite), 6), 0), "AFH_Lite SA is not learned");
    }

    @Test
    void afhGen1LearnsTheSourceWithTheTrafficClassByteMasked() {
        SwitchConfig c = new SwitchConfig();
        c.port(new PortConfig().format(PortFormat.AFH_GEN1));
        c.port(new PortConfig());
        c.port(new PortConfig());
        core = new SwitchCore(c, this::record, new SplittableRandom(1));
        long host = 0x02_11_22_33_44_55L;
        long afhSa = 0xA4_11_22_33_44_55L; // TC byte 0xA4 in place of the SA's first byte
        in(0, Frames.ethernet(B, afhSa, -1, FrameView.ETHERTYPE_AFH, 100));
        assertEquals(0, core.macTable().lookup(host & Mac.LOW40, 0));
        runUntil(100_000);
        int before = sent.size();
        in(1, Frames.ethernet(host, A, -1, 0x88B6, 100));
        runUntil(200_000);
        List<Sent> out = sent.subList(before, sent.size());
        assertEquals(1, out.size(), "forwarded to the learned AFH port, not flooded");
        assertEquals(0, out.get(0).port);
    }

    @Test
    void watchdogForwardIgnoresAStormAfterDetectionAndRestoresWhenPausesStop() {
        long detection = 200_000;
        long restoration = 400_000;
        core(2, c -> c.watchdog(detection, restoration, WatchdogAction.FORWARD), p -> p.pfcMask(0x08));
        core.addStaticMac(B, 1);
        in(1, pfc(0x08, 0, 0, 0, 0xFFFF));
        in(0, Frames.ethernet(B, A, 3, 0x88B6, 500));
        long start = now;
        runUntil(start + detection - 1);
        assertEquals(0, data(1).size());
        runUntil(start + detection + 1_000);
        assertEquals(1, data(1).size(), "sent despite the pause once the storm is detected");
        assertEquals(start + detection, data(1).get(0).start);
        assertEquals(1, core.counters(1).watchdogStorms[3]);
        assertTrue(core.inStorm(1, 3));
        // pause frames keep coming: the storm stays; then they stop
        runUntil(start + 300_000);
        in(1, pfc(0x08, 0, 0, 0, 0xFFFF));
        long lastPause = now;
        runUntil(lastPause + restoration - 1);
        assertTrue(core.inStorm(1, 3));
        runUntil(lastPause + restoration);
        assertFalse(core.inStorm(1, 3));
        assertEquals(1, core.counters(1).watchdogRestores[3]);
    }

    @Test
    void watchdogAlertOnlyCounts() {
        core(2, c -> c.watchdog(100_000, 100_000, WatchdogAction.ALERT), p -> p.pfcMask(0x08));
        core.addStaticMac(B, 1);
        in(1, pfc(0x08, 0, 0, 0, 0xFFFF));
        in(0, Frames.ethernet(B, A, 3, 0x88B6, 500));
        runUntil(1_000_000);
        assertEquals(0, data(1).size());
        assertEquals(1, core.counters(1).watchdogStorms[3]);
    }

    @Test
    void badConfigurationIsRejectedNamingTheField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> core(2, c -> { }, p -> p.defaultPriority(9)));
        assertTrue(e.getMessage().contains("port 0") && e.getMessage().contains("defaultPriority"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> core(2, c -> c.dtAlpha(0), p -> { }));
        assertTrue(e.getMessage().contains("dtAlpha"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> core(2, c -> c.bufferBytes(1000), p -> { }));
        assertTrue(e.getMessage().contains("bufferBytes"), e.getMessage());
    }

    @Test
    void oversizedFramesAreMalformed() {
        core(2, c -> c.maxFrameBytes(1518), p -> { });
        in(0, Frames.ethernet(B, A, -1, 0x88B6, 2000));
        assertEquals(1, core.counters(0).drops(DropReason.MALFORMED));
    }
}
