package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * Responses whose PSN is older than the requester's oldest unacknowledged one (late, duplicated, or sent by anyone who
 * knows the QPN) are ignored, as rxe's check_psn does: the QP stays in RTS, nothing is failed or resent, and the
 * transfer completes with the right bytes.
 */
class StaleResponseTest {
    static final long MS = 1_000_000L;
    static final int SIZE = 64 << 10;
    static final int MESSAGES = 64;
    /** How far behind the oldest unacknowledged PSN each forged response is. */
    static final int[] AGES = {1, 2, 17, 1000, 1 << 20, (1 << 23) - 1};

    enum Kind {
        NAK_INVALID_REQUEST(Opcode.RC_ACKNOWLEDGE, Aeth.SYNDROME_NAK | Aeth.NAK_INVALID_REQUEST),
        NAK_REMOTE_ACCESS(Opcode.RC_ACKNOWLEDGE, Aeth.SYNDROME_NAK | Aeth.NAK_REMOTE_ACCESS_ERROR),
        NAK_REMOTE_OPERATIONAL(Opcode.RC_ACKNOWLEDGE, Aeth.SYNDROME_NAK | Aeth.NAK_REMOTE_OPERATIONAL_ERROR),
        NAK_SEQUENCE(Opcode.RC_ACKNOWLEDGE, Aeth.SYNDROME_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR),
        RNR_NAK(Opcode.RC_ACKNOWLEDGE, Aeth.SYNDROME_RNR_NAK | 31),
        ACK(Opcode.RC_ACKNOWLEDGE, Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID),
        READ_RESPONSE_ONLY(Opcode.RC_RDMA_READ_RESPONSE_ONLY, Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID),
        ATOMIC_ACK(Opcode.RC_ATOMIC_ACKNOWLEDGE, Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID);

        final int opcode;
        final int syndrome;

        Kind(int opcode, int syndrome) {
            this.opcode = opcode;
            this.syndrome = syndrome;
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void staleResponseAtAnyAgeLeavesTheQpInRtsAndTheTransferVerified(Kind kind) {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            SoftQp a = (SoftQp) qp[0];
            MemoryRegion src = r.mrA((long) SIZE * MESSAGES, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB((long) SIZE * MESSAGES, AccessFlags.ALL);
            MemoryRegion readInto = r.mrA(SIZE, AccessFlags.LOCAL_WRITE);
            for (long i = 0; i < (long) SIZE * MESSAGES; i += 8) src.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < MESSAGES; i++) {
                wr.reset().wrId(i).flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE)
                        .addSge(src, (long) i * SIZE, SIZE).remote(dst.address() + (long) i * SIZE, dst.rkey());
                qp[0].postSend(wr);
            }
            // a READ in the middle, so forged responses also arrive while READ responses are partly in
            wr.reset().wrId(MESSAGES).flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_READ)
                    .addSge(readInto, 0, SIZE).remote(dst.address(), dst.rkey());
            qp[0].postSend(wr);
            for (int i = 0; i < MESSAGES; i++) {
                wr.reset().wrId(MESSAGES + 1 + i).flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE)
                        .addSge(src, (long) i * SIZE, SIZE).remote(dst.address() + (long) i * SIZE, dst.rkey());
                qp[0].postSend(wr);
            }
            int total = 2 * MESSAGES + 1;
            Frames frames = new Frames(r.fabric);
            int done = 0;
            int rounds = 0;
            while (done < total) {
                // in steps, each followed by forged responses relative to where the requester is now
                List<WorkCompletion> wcs = r.awaitA(Math.min(8, total - done), 1000 * MS);
                for (WorkCompletion w : wcs) assertEquals(WcStatus.SUCCESS, w.status, kind + ": " + w);
                done += wcs.size();
                if (done < total) {
                    for (int age : AGES) {
                        Packet p = frames.packetToA();
                        p.opcode = kind.opcode;
                        p.destQp = a.qpNum();
                        p.psn = Psn.add(a.completer.compPsn, -age);
                        p.aethSyndrome = kind.syndrome;
                        p.aethMsn = 0;
                        p.atomicAckOriginalData = 0x5555;
                        if (kind == Kind.READ_RESPONSE_ONLY) {
                            p.payloadBuffer = new org.agrona.concurrent.UnsafeBuffer(new byte[256]);
                            p.payloadLength = 256;
                        }
                        assertTrue(frames.sendToA(p, r.sim.now()));
                    }
                    rounds++;
                }
                assertEquals(QpState.RTS, qp[0].state(), kind + " after " + done + " completions");
            }
            assertTrue(rounds > 5, "forged responses arrived during the transfer");
            assertTrue(a.stats().get(Counter.STALE_RESPONSES) >= (long) rounds * (AGES.length - 2), kind + ": counted " + a.stats().get(Counter.STALE_RESPONSES));
            assertEquals(0, a.stats().get(Counter.RETRANSMITTED_PKTS), kind + ": a stale response made the requester resend");
            assertEquals(0, a.stats().get(Counter.RCVD_RNR_ERR), kind.name());
            assertEquals(-1, src.segment().mismatch(dst.segment()), "WRITE target");
            assertEquals(-1, readInto.segment().mismatch(src.segment().asSlice(0, SIZE)), "READ result");
            assertEquals(QpState.RTS, qp[0].state());
            assertEquals(QpState.RTS, qp[1].state());
        }
    }
}
