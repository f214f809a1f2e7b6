package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.FlowResult;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * A sink whose uplink is saturated by READ responses still answers the WRITE and SEND QPs that write to it: their
 * ACKs and NAKs take turns with the READ responses at the sink's TX, as on a NIC, so the writers neither time out
 * nor run out of retries while the READ keeps the line.
 */
class AcksThroughReadResponsesTest {
    private static final long RATE = 10_000_000_000L;
    private static final long START = 1_000_000;

    private record Run(MessageWorkload[] flows, FlowResult[] results, DeviceHost sink, DeviceHost[] hosts, long lost) {
        long sink(Counter c) {
            return sink.device().counters().get(c);
        }

        long writers(Counter c) {
            return hosts[0].device().counters().get(c) + hosts[2].device().counters().get(c);
        }
    }

    /** h0 WRITEs, h1 READs, h2 SENDs 16 KiB messages to (from) the sink through one switch with PFC, ECN and DCQCN. */
    private static Run run(long untilNs, double lossToSink) {
        World w = new World(5, START);
        SwitchConfig sc = new SwitchConfig().bufferBytes(300_000).reserveBytes(1_500);
        for (int i = 0; i < 4; i++) {
            sc.port(new PortConfig().mac(0x02_00_00_00_C0_00L + i).rateBps(RATE).classify(ClassifyMode.DEFAULT)
                    .defaultPriority(3).pfcMask(1 << 3).headroomBytes(50_000).ecn(1 << 3, 5_000, 100_000, 0.2));
        }
        SwitchNode s = w.addSwitch("s", sc);
        DeviceHost sink = w.addDevice(DeviceConfig.named("sink", 1), 1024, 3);
        w.connect(sink, s, 3, RATE, 1_000, null, lossToSink > 0 ? ImpairmentConfig.none().lossRandom(lossToSink, 0) : null);
        MessageWorkload.Op[] ops = {MessageWorkload.Op.WRITE, MessageWorkload.Op.READ, MessageWorkload.Op.SEND};
        MessageWorkload[] flows = new MessageWorkload[3];
        DeviceHost[] hosts = new DeviceHost[3];
        for (int i = 0; i < 3; i++) {
            hosts[i] = w.addDevice(DeviceConfig.named("h" + i, 0x10 + i), 1024, 3);
            w.connect(hosts[i], s, i, RATE, 1_000, null, null);
            flows[i] = new MessageWorkload(w, ops[i].name().toLowerCase(), hosts[i], sink, ops[i], QpType.RC, 16 * 1024, 8,
                    0, untilNs - 200_000, LossRecovery.goBackN(), RateControl.named("dcqcn:line=10g,rpTimer=100"),
                    MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withTimeout(8).withRetryCnt(7), i);
            w.add(hosts[i], flows[i], START);
        }
        w.runUntil(untilNs);
        FlowResult[] results = new FlowResult[3];
        for (int i = 0; i < 3; i++) {
            results[i] = flows[i].result();
            System.out.println(results[i]);
        }
        Run r = new Run(flows, results, sink, hosts, w.impairmentLost());
        w.close();
        return r;
    }

    @Test
    void writeAndSendAcksLeaveBetweenTheReadResponsesThatFillTheSinksUplink() {
        Run r = run(START + 3_000_000, 0);
        FlowResult read = r.results[1];
        assertTrue(read.goodputGbps() > 8, "the READ keeps the sink's uplink: " + read);
        assertTrue(r.sink(Counter.TX_BLOCKED) > 1_000, "the sink's TX queue was full: " + r.sink(Counter.TX_BLOCKED));
        for (int i : new int[] {0, 2}) {
            FlowResult f = r.results[i];
            assertEquals(0, f.errors(), f.name() + " errors: " + f);
            assertEquals(0, f.retransmitted(), f.name() + " sent nothing again (its ACKs came in time): " + f);
            assertTrue(f.goodputGbps() > 3, f.name() + " gets its share of the sink's downlink: " + f);
            SoftQp peer = (SoftQp) r.flows[i].peerQp();
            assertTrue(peer.counters().get(Counter.SENT_PKTS) >= f.messages() / 2, f.name() + ": the sink ACKed it");
        }
    }

    @Test
    void aGapInTheWritersStreamsIsNakedThoughTheSinksUplinkIsFull() {
        Run r = run(START + 4_000_000, 0.002);
        String what = r.lost + " lost, sink out_of_seq_request " + r.sink(Counter.OUT_OF_SEQ_REQUEST) + ", naks_sent "
                + r.sink(Counter.NAKS_SENT) + "; writers ack_timeouts " + r.writers(Counter.ACK_TIMEOUTS) + ", naks_rcvd "
                + r.writers(Counter.NAKS_RCVD);
        System.out.println(what);
        assertTrue(r.lost >= 3 && r.sink(Counter.TX_BLOCKED) > 1_000, "exercised: " + what);
        assertTrue(r.writers(Counter.NAKS_RCVD) >= 2, "the writers heard of their gaps by NAK: " + what);
        assertEquals(0, r.writers(Counter.ACK_TIMEOUTS), "no writer had to time out: " + what);
        for (FlowResult f : r.results) assertEquals(0, f.errors(), f.name() + " errors: " + f);
    }

    @Test
    void theReadSinkExampleRunsEveryFlowToVerifiedMemoryWithoutRetries() throws Exception {
        ResultTable t = TopologyRun.run(TopologyParser.parse(Path.of("..", "examples", "topologies", "read-sink.yaml")), 1,
                1_000_000_000L);
        System.out.print(t.text());
        assertTrue(t.title().contains("all workloads done"), t.text());
        double total = 0;
        for (int i = 0; i < 3; i++) {
            assertEquals("yes", t.cell(i, "verified"), t.text());
            assertEquals("0", t.cell(i, "errors"), t.text());
            assertEquals("0", t.cell(i, "retransmitted"), t.text());
            total += Double.parseDouble(t.cell(i, "goodput_gbps"));
        }
        assertTrue(Double.parseDouble(t.cell(1, "goodput_gbps")) > 8, "the READ keeps h4's uplink: " + t.text());
        assertTrue(Double.parseDouble(t.cell(0, "goodput_gbps")) > 3 && Double.parseDouble(t.cell(2, "goodput_gbps")) > 3,
                "WRITE and SEND share h4's downlink: " + t.text());
    }
}
