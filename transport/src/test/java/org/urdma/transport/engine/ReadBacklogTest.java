package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * A slow responder still sending the responses of READs the requester already asked for again is alive: those
 * responses hold off the ACK timeout (rxe restarts its retransmit timer on every response), so a backlog longer than
 * the timeout does not spend retry_cnt and end in RETRY_EXC_ERR (seen against rxe in a slow guest).
 */
class ReadBacklogTest {
    static final long MS = 1_000_000L;
    static final int READS = 16;
    static final int SIZE = 64 << 10;

    @Test
    void responsesToReadsAlreadyAskedForAgainHoldOffTheAckTimeout() {
        // 1 Gbit/s: 16 READs of 64 KiB are ~8.7 ms of responses; the ACK timeout is ~1 ms (timeout 8) with 3 retries
        MemoryLink.Config link = MemoryLink.Config.defaults().withLatency(2_000).withGbps(1);
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.dropEvery(300), LossRecovery.goBackN(), link)) {
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withTimeout(8).withRetryCnt(3);
            QueuePair[] qp = r.connect(QpType.RC, c);
            MemoryRegion remote = r.mrB((long) SIZE * READS, AccessFlags.ALL);
            MemoryRegion local = r.mrA((long) SIZE * READS, AccessFlags.LOCAL_WRITE);
            for (long i = 0; i < (long) SIZE * READS; i += 8) {
                remote.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < READS; i++) {
                wr.reset().wrId(i).flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_READ)
                        .addSge(local, (long) i * SIZE, SIZE).remote(remote.address() + (long) i * SIZE, remote.rkey());
                qp[0].postSend(wr);
            }
            List<WorkCompletion> wcs = r.awaitA(READS, 2_000 * MS);
            for (WorkCompletion w : wcs) assertEquals(WcStatus.SUCCESS, w.status, w.toString());
            assertEquals(-1, local.segment().mismatch(remote.segment()), "READ results");
            SoftQp a = (SoftQp) qp[0];
            assertTrue(a.stats().get(Counter.RETRANSMITTED_PKTS) > 0, "a response was lost and READs were asked for again");
        }
    }
}
