package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.packet.Route;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.MacControlFrame;
import org.urdma.verbs.Gid;

/**
 * Received 802.1Qbb PFC and 802.3x PAUSE frames (hand-made, through the datapath AF_PACKET and TAP links share) gate
 * the priorities they name for quanta x 512 bit times at the link's rate; XON resumes at once; counted per priority.
 */
class PauseFramesTest {
    static final byte[] MAC = PortIdentity.parseMac("02:00:00:00:00:01");
    static final byte[] PEER = PortIdentity.parseMac("02:00:00:00:00:02");
    static final long SWITCH_MAC = 0x02_00_00_00_00_99L;
    static final long GBPS = 1_000_000_000L;

    final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
    final int[] quanta = new int[8];

    /** Tagged RoCEv1 with the PCP from the traffic class, quanta timed at {@code rate} (0: the interface's). */
    static EthernetDatapath datapath(long rate, long interfaceSpeed) {
        EthernetLinkConfig c = EthernetLinkConfig.of(FramingKind.ROCE1, PortIdentity.of(MAC, "10.9.0.1/24"))
                .withVlan(0, 0).withPcpFromTrafficClass(true).withLinkRate(rate);
        return new EthernetDatapath(c, interfaceSpeed, 0);
    }

    static Route priority(int p) {
        return new Route().set(PEER, Gid.fromMac(PEER).toBytes()).trafficClass(p << 5);
    }

    void pfc(EthernetDatapath d, int priority, int q, long now) {
        quanta[priority] = q;
        int len = MacControlFrame.putPfc(frame, 0, SWITCH_MAC, 1 << priority, quanta);
        d.onFrame(frame, 0, len, len, -1, now, (p, t) -> { throw new AssertionError("a PFC frame reached the engine"); });
    }

    void pause(EthernetDatapath d, int q, long now) {
        int len = MacControlFrame.putPause(frame, 0, SWITCH_MAC, q);
        d.onFrame(frame, 0, len, len, -1, now, (p, t) -> { throw new AssertionError("a PAUSE frame reached the engine"); });
    }

    @Test
    void pfcPausesItsPriorityForExactlyQuantaTimes512BitTimesWhileOthersKeepSending() {
        EthernetDatapath d = datapath(10 * GBPS, 0);
        long t0 = 1_000_000;
        pfc(d, 3, 1000, t0);
        long end = t0 + 1000 * 512 * 1_000_000_000L / (10 * GBPS); // 51 200 ns at 10 Gbit/s
        assertEquals(t0 + 51_200, end);
        assertEquals(end, d.nextEventTime(), "a simulated driver wakes at the end of the pause");
        for (long t : new long[] {t0, t0 + 1, end - 1}) {
            assertFalse(d.mayStart(priority(3), t), "priority 3 at " + (t - t0));
            for (int other : new int[] {0, 1, 2, 4, 7}) assertTrue(d.mayStart(priority(other), t), "priority " + other);
        }
        assertTrue(d.mayStart(priority(3), end));
        assertEquals(Long.MAX_VALUE, d.nextEventTime());
        LinkCounters c = d.counters();
        assertEquals(1, c.pauseFrames(3));
        assertEquals(1, c.pauseFrames());
        assertEquals(51_200, c.pauseTimeNs(3));
        assertEquals(51_200, c.pauseTimeNs());
        assertEquals(3, c.txPaused());
        assertEquals(0, c.rxIgnored(), "honoured, no longer ignored");
        assertEquals(1, c.rxMacControl());
    }

    @Test
    void xonResumesAtOnceAndCountsOnlyTheTimePaused() {
        EthernetDatapath d = datapath(10 * GBPS, 0);
        pfc(d, 5, 0xFFFF, 100);
        assertFalse(d.mayStart(priority(5), 2_000));
        pfc(d, 5, 0, 2_500);
        assertTrue(d.mayStart(priority(5), 2_500));
        assertEquals(Long.MAX_VALUE, d.nextEventTime());
        assertEquals(2, d.counters().pauseFrames(5));
        assertEquals(2_400, d.counters().pauseTimeNs(5));
    }

    @Test
    void aNewPfcFrameReplacesTheRunningTime() {
        EthernetDatapath d = datapath(GBPS, 0); // 512 ns per quantum
        pfc(d, 3, 100, 0); // until 51 200
        pfc(d, 3, 10, 1_000); // refreshed shorter: until 6 120
        assertEquals(6_120, d.nextEventTime());
        assertFalse(d.mayStart(priority(3), 6_119));
        assertTrue(d.mayStart(priority(3), 6_120));
        assertEquals(6_120, d.counters().pauseTimeNs(3));
    }

    @Test
    void pausePausesEveryPriorityAndPollCountsTheTimeWithoutASend() {
        EthernetDatapath d = datapath(0, 25 * GBPS); // the interface's 25 Gbit/s: 20.48 ns per quantum
        assertEquals(25 * GBPS, d.pauseRateBps());
        assertEquals("interface speed", d.pauseRateSource());
        pause(d, 1000, 0);
        for (int p = 0; p < 8; p++) {
            assertFalse(d.mayStart(priority(p), 20_479), "priority " + p);
            assertEquals(1, d.counters().pauseFrames(p));
        }
        d.poll(20_480);
        for (int p = 0; p < 8; p++) {
            assertEquals(20_480, d.counters().pauseTimeNs(p), "priority " + p);
            assertTrue(d.mayStart(priority(p), 20_480));
        }
        assertEquals(8 * 20_480, d.counters().pauseTimeNs());
    }

    @Test
    void anInterfaceWithoutASpeedTimesQuantaAtTenGigabitAndSaysSo() {
        EthernetDatapath d = datapath(0, 0);
        assertEquals(10 * GBPS, d.pauseRateBps());
        assertTrue(d.flowControlLine().contains("10000 Mbit/s (default, the interface reports no speed)"), d.flowControlLine());
        assertEquals("configured", datapath(GBPS, 25 * GBPS).pauseRateSource());
        assertThrows(IllegalArgumentException.class, () -> datapath(-1, 0), "linkRate");
    }

    @Test
    void untaggedFramesArePriorityOfTheConfiguredPcp() {
        EthernetDatapath d = new EthernetDatapath(EthernetLinkConfig.of(FramingKind.ROCE1, PortIdentity.of(MAC, "10.9.0.1/24"))
                .withLinkRate(10 * GBPS));
        pfc(d, 0, 100, 0);
        assertFalse(d.mayStart(priority(6), 10), "untagged: priority 0 whatever the traffic class");
    }

    @Test
    void pauseFramesReachTheDeviceCountersPerPriority() {
        EthernetDatapath d = datapath(10 * GBPS, 0);
        try (EngineCounters ec = EngineCounters.inMemory("pfc-test")) {
            d.engineCounters(ec);
            pfc(d, 3, 1000, 0);
            pfc(d, 3, 0, 10_000);
            assertEquals(2, ec.get(Counter.PAUSE_FRAMES_RCVD, 3));
            assertEquals(10_000, ec.get(Counter.PAUSE_TIME_NS, 3));
            assertEquals(0, ec.get(Counter.PAUSE_FRAMES_RCVD, 2));
        }
    }

    @Test
    void aCbfcLinkIgnoresPfcAndCountsIt() {
        EthernetLinkConfig c = EthernetLinkConfig.of(FramingKind.PAXI_AFH1, PortIdentity.of(MAC, "10.9.0.1/24"))
                .withVlan(0, 3).withLinkRate(10 * GBPS).withFlowControl(FlowControl.CBFC, 16);
        EthernetDatapath d = new EthernetDatapath(c, 0, 0);
        pfc(d, 3, 1000, 0);
        assertTrue(d.mayStart(priority(3), 10));
        assertEquals(0, d.counters().pauseFrames());
        assertEquals(1, d.counters().rxIgnored());
        assertThrows(IllegalArgumentException.class, () -> EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(MAC, "10.9.0.1/24"))
                .withFlowControl(FlowControl.CBFC, 0), "flowControl");
    }

    @Test
    void pfcToAnotherStationIsNotOurs() {
        EthernetDatapath d = datapath(10 * GBPS, 0);
        int len = MacControlFrame.putPfc(frame, 0, SWITCH_MAC, 0x08, new int[] {0, 0, 0, 1000, 0, 0, 0, 0});
        frame.putByte(5, (byte) 0x77); // DA 01:80:c2:00:00:77
        d.onFrame(frame, 0, len, len, -1, 0, (p, t) -> { });
        assertTrue(d.mayStart(priority(3), 10));
        assertEquals(1, d.counters().rxIgnored());
    }
}
