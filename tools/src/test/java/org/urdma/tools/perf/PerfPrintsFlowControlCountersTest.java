package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.transport.link.ethernet.EthernetLinkConfig;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.MacControlFrame;
import picocli.CommandLine;

/** {@code urdma perf}'s summary shows the PFC/PAUSE frames and paused time the link received, when there were any. */
class PerfPrintsFlowControlCountersTest {
    static EthernetDatapath datapath() {
        return new EthernetDatapath(EthernetLinkConfig.of(FramingKind.ROCE1, PortIdentity.of(PortIdentity.parseMac("02:00:00:00:00:01"),
                "10.9.0.1/24")).withVlan(0, 3).withLinkRate(1_000_000_000L));
    }

    @Test
    void noPauseNoLine() {
        assertEquals("", NetPerf.flowControlSummary(datapath()));
    }

    @Test
    void pausedPrioritiesAreListedWithTheirFramesAndTime() {
        EthernetDatapath d = datapath();
        UnsafeBuffer f = new UnsafeBuffer(new byte[64]);
        int len = MacControlFrame.putPfc(f, 0, 0x020000000099L, 0x08, new int[] {0, 0, 0, 1000, 0, 0, 0, 0});
        d.onFrame(f, 0, len, len, -1, 0, (p, t) -> { });
        d.poll(1_000_000); // 1000 quanta at 1 Gbit/s: 512 us, over by now
        assertEquals("pause rcvd (priority: frames/us paused): 3: 1/512; sends held 0", NetPerf.flowControlSummary(d));
    }

    @Test
    void linkRateAndFlowControlOptionsAreCheckedWithOneLineErrors() {
        NetOptions n = new NetOptions();
        new CommandLine(n).parseArgs("--link-rate", "25G", "--flow-control", "cbfc");
        assertEquals(25_000_000_000L, n.linkRateBps());
        n.linkRate = "fast";
        assertEquals("--link-rate: a rate such as 10G, 25G or 100M, was 'fast'",
                assertThrows(IllegalArgumentException.class, n::linkRateBps).getMessage());
        assertEquals("flow-control: must be pfc or cbfc, was x",
                assertThrows(IllegalArgumentException.class, () -> org.urdma.transport.link.ethernet.FlowControl.parse("x")).getMessage());
    }
}
