package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.QpType;

/** Arrivals for no QP, another partition, and CNPs past the merge, hand-made. */
class RxDemuxTest {
    static final long MS = ResponderHarness.MS;

    @Test
    void aPacketForNoQpOrAnotherPartitionIsDroppedAndCounted() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            Packet p = h.request(Opcode.SEND_ONLY, h.psn(0));
            p.destQp = 0x654321;
            h.deliver(p);
            assertEquals(1, h.rig.fabric.b.stats().get(Counter.DROP_UNKNOWN_QP));
            Packet q = h.request(Opcode.SEND_ONLY, h.psn(0));
            q.pkey = 0x1234;
            h.deliver(q);
            assertEquals(1, h.qb.counters().get(Counter.DROP_BAD_PKEY));
            assertEquals(0, h.qb.counters().get(Counter.RCVD_PKTS), "neither reached the QP");
        }
    }

    @Test
    void cnpsWithinTheMergeIntervalAreMergedIntoOne() {
        DeviceConfig b = DeviceConfig.named("b", 2).withCnp(new CnpConfig(CnpConfig.DEFAULT_INTERVAL_NANOS, 10 * MS));
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("a", 1), b, MemoryLink.Config.defaults(),
                MemoryFabric.CodecFactory.wire(FramingKind.ROCE2), ImpairmentConfig.none(), ImpairmentConfig.none(), 42,
                Rig.START, MemoryFabric.Telemetry.IN_MEMORY);
        org.urdma.transport.driver.SimulatedDriver sim = new org.urdma.transport.driver.SimulatedDriver(Rig.START, f.a, f.b);
        var pa = f.a.allocPd();
        var pb = f.b.allocPd();
        var qp = f.connect(pa, MemoryFabric.init(QpType.RC, f.a.createCq(64, null), 16), pb,
                MemoryFabric.init(QpType.RC, f.b.createCq(64, null), 16), MemoryFabric.Connection.defaults(), 1, 2);
        SoftQp qb = (SoftQp) qp[1];
        Frames frames = new Frames(f);
        for (int i = 0; i < 3; i++) {
            Packet cnp = frames.packetWithGids();
            cnp.opcode = Opcode.CNP;
            cnp.destQp = qb.qpNum();
            assertTrue(frames.send(cnp, sim.now()));
            sim.runFor(MS / 10);
        }
        assertEquals(1, qb.stats().get(Counter.CNP_HANDLED), "the first reaches the rate control");
        assertEquals(2, qb.stats().get(Counter.CNP_MERGED), "the next two came within the merge interval");
        assertEquals(2, f.b.stats().get(Counter.CNP_MERGED));
    }
}
