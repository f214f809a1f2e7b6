package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import picocli.CommandLine;

/** {@code urdma perf}'s summary shows the frames each device dropped for an unknown QP, a foreign P_Key, or otherwise. */
class PerfPrintsRxDropsTest {
    @Test
    void aMemoryRunPrintsBothDevicesRxDrops() {
        PerfTestCommand c = new PerfTestCommand(PerfTest.WRITE_BW) {
        };
        new CommandLine(c).parseArgs("-n", "100", "-s", "4096", "--no-copy-baseline");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            assertEquals(0, PerfRunner.run(PerfTest.WRITE_BW, c.o, c.net, out));
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("\n client device rx drops: unknown QP 0, bad P_Key 0, other 0\n"
                + " server device rx drops: unknown QP 0, bad P_Key 0, other 0\n"), out);
    }

    @Test
    void theDropsLineCountsFramesForAnUnknownQpAndAForeignPkey() {
        long start = 1_000_000_000L;
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("a", 1), DeviceConfig.named("b", 2), MemoryLink.Config.defaults(),
                MemoryFabric.CodecFactory.wire(FramingKind.ROCE2), ImpairmentConfig.none(), ImpairmentConfig.none(), 42, start);
        SimulatedDriver sim = new SimulatedDriver(start, f.a, f.b);
        var pdA = f.a.allocPd();
        var pdB = f.b.allocPd();
        QueuePair[] qp = f.connect(pdA, MemoryFabric.init(QpType.RC, f.a.createCq(16, null), 16), pdB,
                MemoryFabric.init(QpType.RC, f.b.createCq(16, null), 16), MemoryFabric.Connection.defaults(), 1, 2);
        // frames as a foreign host would send them: RoCEv2 from a's MAC to b's
        Packet p = new Packet();
        p.srcMac = 0x020000000001L;
        p.dstMac = 0x020000000002L;
        p.opcode = Opcode.RC_SEND_ONLY;
        p.psn = 2;
        p.destQp = qp[1].qpNum() + 1000; // no such QP on b
        var frame = new org.agrona.concurrent.UnsafeBuffer(new byte[256]);
        var roce2 = Framings.of(FramingKind.ROCE2);
        assertTrue(f.linkA.inject(frame, 0, roce2.encode(p, frame, 0), start));
        p.destQp = qp[1].qpNum();
        p.pkey = 0x8001; // not b's partition
        assertTrue(f.linkA.inject(frame, 0, roce2.encode(p, frame, 0), start));
        sim.runFor(1_000_000);
        assertEquals("device rx drops: unknown QP 1, bad P_Key 1, other 0", PerfRunner.rxDrops(f.b));
    }
}
