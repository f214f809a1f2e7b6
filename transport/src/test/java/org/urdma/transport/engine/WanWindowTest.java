package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * A WAN QP keeps a bandwidth-delay product in flight that the device's DC window (512 packets, what RC go-back-N
 * resends at worst) would not hold: at 1 Gbit/s and 80 ms that is 2442 packets of 4 KiB, and one loss holds the
 * cumulative ACK back a round trip more. The receiver holds 32 Ki PSNs past its in-order point.
 */
class WanWindowTest {
    @Test
    void aWanQpSendsMoreThanTheDeviceWindowInOneRoundTrip() {
        long latency = 10_000_000; // 20 ms round trip
        int packets = 4096;
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.goBackN(),
                MemoryLink.Config.defaults().withLatency(latency).withSlots(8192))) {
            int flags = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;
            QueuePair[] qps = r.wan(flags, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024), 64);
            long[] firstRtt = {0};
            r.fabric.linkA.tap((f, off, len, now) -> {
                if (now < Rig.START + 2 * latency) firstRtt[0]++;
            });
            MemoryRegion src = r.mrA(packets * 1024, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(packets * 1024, AccessFlags.ALL);
            qps[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, packets * 1024).remote(dst.address(), dst.rkey()));
            List<WorkCompletion> wcs = r.awaitA(1, 1_000_000_000L);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            assertTrue(firstRtt[0] == packets, firstRtt[0] + " of " + packets + " packets sent before the first ACK could come back");
        }
    }
}
