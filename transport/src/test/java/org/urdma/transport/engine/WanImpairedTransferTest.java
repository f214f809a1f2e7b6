package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.rate.Rrcc;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * A WAN-mode transfer (timestamps, per-packet RETH, SACK, adaptive FEC, RRCC without a reference rate) over a
 * veth-like path: 1 Gbit/s, 10 us each way, with 1 % loss, 0.5 % duplication and 1 % reordering in both directions.
 * The reordering and duplicates read as loss to the receiver's meter and the min RTT is far below a round, which
 * cut RRCC on every report and held each probe to the rate before it until the rate reached 1 bit/s. It must keep
 * a rate of at least its least one, complete every WRITE and place every byte.
 */
class WanImpairedTransferTest {
    static final long START = 1_000_000_000L;
    static final int MSG = 64 * 1024;
    /** WRITEs in all, cycling over {@link #SLOTS} places of the regions. */
    static final int WRITES = 1500;
    static final int SLOTS = 384;
    static final long MS = 1_000_000L;

    @Test
    void aWanTransferThroughLossDuplicationAndReorderingKeepsARateAndCompletes() {
        DeviceConfig ca = DeviceConfig.named("a", 1).withLossRecovery(LossRecovery.sack());
        DeviceConfig cb = DeviceConfig.named("b", 2).withLossRecovery(LossRecovery.sack());
        MemoryLink[] ends = MemoryLink.pair(MemoryLink.Config.defaults().withLatency(10_000).withGbps(1.0).withSlots(4096),
                new LinkFraming(FramingKind.ROCE2, ca.mac(), ca.gid().toBytes()),
                new LinkFraming(FramingKind.ROCE2, cb.mac(), cb.gid().toBytes()),
                ImpairmentConfig.random(0.01, 0.005, 0.01, 7), ImpairmentConfig.random(0.01, 0.005, 0.01, 8));
        SoftDevice a = new SoftDevice(ca, ends[0], new SplittableRandom(1), START, EngineCounters.inMemory("a"), EventJournal.NONE);
        SoftDevice b = new SoftDevice(cb, ends[1], new SplittableRandom(2), START, EngineCounters.inMemory("b"), EventJournal.NONE);
        SimulatedDriver sim = new SimulatedDriver(START, a, b);
        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        CompletionQueue cqA = a.createCq(256, null);
        QueuePair qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 128));
        QueuePair qb = pdB.createQp(MemoryFabric.init(QpType.RC, b.createCq(256, null), 128));
        Rrcc[] rrcc = new Rrcc[1];
        ((SoftQp) qa).policies(LossRecovery.sack(), RateControl.Factory.of("rrcc", () -> rrcc[0] = new Rrcc(Rrcc.Config.defaults())));
        int flags = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK | OpcodeTable.UETH_FEC;
        ((SoftQp) qa).wan(flags, 0, 0);
        ((SoftQp) qb).wan(flags, 0, 0);
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
        MemoryFabric.bringUp(qa, b, qb.qpNum(), 100, 0xFFFFF0, c);
        MemoryFabric.bringUp(qb, a, qa.qpNum(), 0xFFFFF0, 100, c);
        try (Arena arena = Arena.ofConfined()) {
            long size = (long) MSG * SLOTS;
            MemorySegment src = arena.allocate(size, 64);
            SplittableRandom fill = new SplittableRandom(3);
            for (long i = 0; i < size; i += 8) src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, fill.nextLong());
            MemorySegment dst = arena.allocate(size, 64);
            MemoryRegion mrSrc = pdA.registerMemory(src, AccessFlags.LOCAL_WRITE);
            MemoryRegion mrDst = pdB.registerMemory(dst, AccessFlags.ALL);
            WorkCompletion[] wc = new WorkCompletion[64];
            for (int i = 0; i < wc.length; i++) wc[i] = new WorkCompletion();
            int posted = 0;
            int completed = 0;
            long least = Long.MAX_VALUE;
            long deadline = START + 20_000 * MS;
            while (completed < WRITES && sim.now() < deadline) {
                while (posted < WRITES && posted - completed < 64) {
                    qa.postSend(new SendWorkRequest().wrId(posted).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .addSge(mrSrc, (long) (posted % SLOTS) * MSG, MSG)
                            .remote(mrDst.address() + (long) (posted % SLOTS) * MSG, mrDst.rkey()));
                    posted++;
                }
                sim.runFor(200_000);
                int n;
                while ((n = cqA.poll(wc)) > 0) {
                    for (int i = 0; i < n; i++) assertEquals(WcStatus.SUCCESS, wc[i].status, "WRITE " + wc[i].wrId);
                    completed += n;
                }
                if (sim.now() > START + 50 * MS) least = Math.min(least, rrcc[0].rateBps()); // past startup
            }
            String say = "completed " + completed + " of " + WRITES + " in " + (sim.now() - START) / MS + " ms (virtual), least rate "
                    + least / 1e6 + " Mbit/s, loss cuts " + rrcc[0].lossCuts() + ", resent " + ((SoftQp) qa).stats().get(Counter.RETRANSMITTED_PKTS)
                    + ", timeouts " + ((SoftQp) qa).stats().get(Counter.ACK_TIMEOUTS);
            System.out.println("WAN impaired: " + say);
            assertEquals(WRITES, completed, say);
            // 4 packets of 1 KiB per 1 ms round: RRCC's least rate
            assertTrue(least >= 4 * 1024 * 8_000L, say);
            assertEquals(-1, dst.mismatch(src), "every byte placed: " + say);
        }
    }
}
