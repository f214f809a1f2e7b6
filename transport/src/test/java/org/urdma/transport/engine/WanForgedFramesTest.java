package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * Frames a third host forges with the peer's addresses during a verified WAN-mode transfer (timestamps, per-packet
 * RETH, SACK, FEC): requests ahead of the expected PSN with a bad R_Key or no per-packet RETH, requests beyond the
 * window, parity for groups outside it and parity that sets groups of one followed by far-ahead PSNs, stale SACKs,
 * READ responses nobody asked for. None needs a key; each is dropped and counted by its reason, the transfer
 * completes and memory outside the region is unchanged. One forged READ far ahead leaves a gap no one fills: the
 * SACKs it causes back off and stop.
 */
class WanForgedFramesTest {
    static final int WAN = ForgedWanFrames.WAN;
    static final int MSG = 16 * 1024;
    static final int WRITES = 200;
    static final int BAD_RKEY = 0x0BAD0BAD;

    @Test
    void everyForgedFrameClassIsCountedByReasonAndTheTransferCompletesWithMemoryIntact() {
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.sack(),
                MemoryLink.Config.defaults().withLatency(10_000).withSlots(4096), 512)) {
            QueuePair[] q = r.wan(WAN, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024), 256);
            SoftQp qa = (SoftQp) q[0];
            SoftQp qb = (SoftQp) q[1];
            long region = (long) MSG * WRITES;
            MemorySegment whole = r.segment(region + 2 * 65536);
            whole.fill((byte) 0x5A);
            MemorySegment inside = whole.asSlice(65536, region);
            MemoryRegion dst = r.pdB.registerMemory(inside, AccessFlags.ALL);
            MemoryRegion src = r.mrA(region, AccessFlags.LOCAL_WRITE);
            MemorySegment srcBytes = MemorySegment.ofAddress(src.address()).reinterpret(region);
            SplittableRandom fill = new SplittableRandom(9);
            for (long i = 0; i < region; i += 8) srcBytes.set(ValueLayout.JAVA_LONG_UNALIGNED, i, fill.nextLong());
            for (int i = 0; i < WRITES; i++) {
                qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, (long) i * MSG, MSG).remote(dst.address() + (long) i * MSG, dst.rkey()));
            }
            Frames frames = new Frames(r.fabric);
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
            SplittableRandom rnd = new SplittableRandom(4);
            int window = PsnWindow.sizeFor(512);
            long aheadAccess = 0, aheadInvalid = 0, beyond = 0, parityOutside = 0, staleSacks = 0, readResponses = 0;
            long groupsBefore = qb.fecRx.groupsOpened();
            long fecFrames = 0;
            for (int round = 0; round < 40 && qb.state() == QpState.RTS; round++) {
                long now = r.sim.now();
                int e = qb.responder.ePsn;
                // a WRITE ahead with a guessed R_Key, and one without its per-packet RETH: dropped, not NAK'd
                frames.send(request(frames, qb, Opcode.RC_RDMA_WRITE_ONLY, Psn.add(e, rnd.nextInt(1, window)), BAD_RKEY,
                        dst.address(), WAN, payload), now);
                aheadAccess++;
                frames.send(request(frames, qb, Opcode.RC_RDMA_WRITE_ONLY, Psn.add(e, rnd.nextInt(1, window)), dst.rkey(),
                        dst.address(), OpcodeTable.UETH_TS, payload), now);
                aheadInvalid++;
                // blind, beyond the window
                frames.send(request(frames, qb, Opcode.RC_RDMA_WRITE_ONLY, Psn.add(e, window + rnd.nextInt(0, 1 << 20)),
                        BAD_RKEY, whole.address(), WAN, payload), now);
                beyond++;
                // parity for a group far outside the window, and parity inside it that says groups of one
                frames.send(parity(frames, qb, Psn.add(e, (rnd.nextBoolean() ? 1 : -1) * (window + rnd.nextInt(1 << 20))), 4, payload), now);
                parityOutside++;
                frames.send(parity(frames, qb, Psn.add(e, rnd.nextInt(1, 64)), 1, payload), now);
                // far-ahead PSNs inside the window (after groups of one: the decoder's worst case)
                frames.send(request(frames, qb, Opcode.RC_RDMA_WRITE_ONLY, Psn.add(e, window - 1 - rnd.nextInt(16)), BAD_RKEY,
                        dst.address(), WAN, payload), now);
                aheadAccess++;
                fecFrames += 2;
                // to A: a SACK for PSNs long acknowledged, and READ responses A never asked for
                Packet sack = ack(frames, qa, Psn.add(qa.completer.compPsn, -1000 - rnd.nextInt(1000)));
                frames.sendToA(sack, now);
                staleSacks++;
                frames.sendToA(readResponse(frames, qa, Psn.add(qa.completer.compPsn, -5 - rnd.nextInt(100)), payload), now);
                readResponses++;
                r.run(200_000);
            }
            // each of those frames opened at most the decoder's slots of groups, not one group per PSN
            assertTrue(qb.fecRx.groupsOpened() - groupsBefore <= 8 * (fecFrames + 4 * 40) + WRITES * MSG / 1024,
                    "groups opened " + (qb.fecRx.groupsOpened() - groupsBefore));
            List<WorkCompletion> done = r.awaitA(WRITES, 2_000_000_000L);
            for (WorkCompletion w : done) assertEquals(WcStatus.SUCCESS, w.status, "WRITE " + w.wrId);
            assertEquals(QpState.RTS, qb.state());
            assertEquals(QpState.RTS, qa.state());
            assertEquals(-1, inside.mismatch(srcBytes), "the transfer placed every byte");
            byte[] outside = new byte[65536];
            java.util.Arrays.fill(outside, (byte) 0x5A);
            assertEquals(-1, whole.asSlice(0, 65536).mismatch(MemorySegment.ofArray(outside)), "below the region");
            assertEquals(-1, whole.asSlice(65536 + region, 65536).mismatch(MemorySegment.ofArray(outside)), "above the region");
            // counted by reason
            StringBuilder all = new StringBuilder();
            for (Counter c : Counter.values()) {
                if (c.scope() == Counter.Scope.QP && qb.counters().get(c) != 0) all.append(c.label()).append('=').append(qb.counters().get(c)).append(' ');
            }
            System.out.println("B: " + all + " device unknown QP " + r.fabric.b.stats().get(Counter.DROP_UNKNOWN_QP) + " bad pkey " + r.fabric.b.stats().get(Counter.DROP_BAD_PKEY)
                    + " malformed " + r.fabric.linkB.framing().decodeErrors());
            assertEquals(aheadAccess, qb.counters().get(Counter.DROP_AHEAD_ACCESS), "R_Key ahead of the expected PSN");
            assertEquals(aheadInvalid, qb.counters().get(Counter.DROP_AHEAD_INVALID), "no per-packet RETH ahead");
            assertTrue(qb.counters().get(Counter.DROP_NOT_PLACEABLE) >= beyond, "beyond the window");
            assertEquals(parityOutside, qb.counters().get(Counter.DROP_FEC_OUT_OF_WINDOW), "parity outside the window");
            assertTrue(qa.counters().get(Counter.STALE_RESPONSES) >= staleSacks + readResponses, "stale SACKs and READ responses");
            assertEquals(0, qb.counters().get(Counter.NAKS_SENT), "nothing forged reached the expected PSN");
        }
    }

    @Test
    void theSacksForAGapNoOneFillsBackOffAndStop() {
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.sack(),
                MemoryLink.Config.defaults().withLatency(10_000), 512)) {
            int flags = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;
            QueuePair[] q = r.wan(flags, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024), 64);
            SoftQp qb = (SoftQp) q[1];
            MemoryRegion dst = r.mrB(4096, AccessFlags.ALL);
            Frames frames = new Frames(r.fabric);
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            r.run(1_000_000);
            // one forged READ request 1000 PSNs ahead: not placeable yet, and it opens a gap up to it
            Packet p = request(frames, qb, Opcode.RC_RDMA_READ_REQUEST, Psn.add(qb.responder.ePsn, 1000), dst.rkey(),
                    dst.address(), flags, payload);
            p.payloadLength = 0;
            p.rethDmaLength = 64;
            frames.send(p, r.sim.now());
            r.run(1_000_000_000L); // a second: at 200 us a SACK each without back-off, ~5000
            long sacks = qb.counters().get(Counter.SACKS_SENT);
            assertTrue(sacks >= 1 && sacks <= WanReceiver.MAX_SACK_REPEATS + 2, "SACKs for the forged gap in 1 s: " + sacks);
            assertEquals(QpState.RTS, qb.state());
            r.run(10_000_000_000L);
            assertEquals(sacks, qb.counters().get(Counter.SACKS_SENT), "and none later");
        }
    }

    @Test
    void aForgedReadFarAheadDuringATransferResendsNothingInFlight() {
        // 100 us each way at 10 Gbit/s, 8 WRITEs of 16 packets outstanding: ~128 packets on their way at any time
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.sack(),
                MemoryLink.Config.defaults().withLatency(100_000).withGbps(10).withSlots(4096), 512)) {
            QueuePair[] q = r.wan(WAN, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024), 256);
            SoftQp qa = (SoftQp) q[0];
            SoftQp qb = (SoftQp) q[1];
            long region = (long) MSG * WRITES;
            MemoryRegion dst = r.mrB(region, AccessFlags.ALL);
            MemoryRegion src = r.mrA(region, AccessFlags.LOCAL_WRITE);
            Frames frames = new Frames(r.fabric);
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            int window = PsnWindow.sizeFor(512);
            int posted = 0, done = 0, forged = 0;
            long nextForge = r.sim.now() + 300_000;
            while (done < WRITES && r.sim.now() < Rig.START + 2_000_000_000L) {
                while (posted < WRITES && posted - done < 8) {
                    qa.postSend(new SendWorkRequest().wrId(posted).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .addSge(src, (long) posted * MSG, MSG).remote(dst.address() + (long) posted * MSG, dst.rkey()));
                    posted++;
                }
                r.run(10_000);
                for (WorkCompletion w : r.awaitA(r.pendingA().size(), 0)) {
                    assertEquals(WcStatus.SUCCESS, w.status, "WRITE " + w.wrId);
                    done++;
                }
                if (r.sim.now() >= nextForge && posted < WRITES) {
                    // a READ with the right R_Key near the window's far end, past every PSN A has sent: B cannot place
                    // it and lists every PSN before it as missing, those still on their way included
                    Packet p = request(frames, qb, Opcode.RC_RDMA_READ_REQUEST, Psn.add(qb.responder.ePsn, window - 1 - forged),
                            dst.rkey(), dst.address(), WAN, payload);
                    p.payloadLength = 0;
                    p.rethDmaLength = 64;
                    if (frames.send(p, r.sim.now())) forged++;
                    nextForge += 200_000;
                }
            }
            assertEquals(WRITES, done, "every WRITE completed");
            assertTrue(forged >= 5, "forged during the transfer: " + forged);
            System.out.println("A: " + nonZero(qa) + "\nB: " + nonZero(qb));
            assertTrue(qb.counters().get(Counter.SACKS_SENT) >= forged, "B listed the forged gaps");
            // the bound: none. The link loses nothing, so every resend would be spurious
            assertEquals(0, qa.stats().get(Counter.RETRANSMITTED_PKTS), "packets resent");
            assertEquals(0, qb.counters().get(Counter.DUPLICATE_REQUEST), "duplicates at B");
            assertTrue(qa.counters().get(Counter.DROP_SACK_UNSENT) >= forged, "SACKs naming PSNs A never sent are counted");
        }
    }

    private static String nonZero(SoftQp qp) {
        StringBuilder all = new StringBuilder();
        for (Counter c : Counter.values()) {
            if (c.scope() == Counter.Scope.QP && qp.counters().get(c) != 0) all.append(c.label()).append('=').append(qp.counters().get(c)).append(' ');
        }
        return all.toString();
    }

    /** A request from A's addresses to B's QP with a per-packet RETH (when the flags say so) and a timestamp. */
    private static Packet request(Frames f, SoftQp to, int opcode, int psn, int rkey, long va, int uethFlags, UnsafeBuffer payload) {
        return ForgedWanFrames.request(f.packetWithGids(), to.qpNum(), opcode, psn, rkey, va, uethFlags, payload);
    }

    private static Packet parity(Frames f, SoftQp to, int base, int m, UnsafeBuffer payload) {
        return ForgedWanFrames.parity(f.packetWithGids(), to.qpNum(), base, m, payload);
    }

    private static Packet ack(Frames f, SoftQp to, int psn) {
        return ForgedWanFrames.sack(f.packetToA(), to.qpNum(), psn);
    }

    private static Packet readResponse(Frames f, SoftQp to, int psn, UnsafeBuffer payload) {
        return ForgedWanFrames.readResponse(f.packetToA(), to.qpNum(), psn, payload);
    }
}
