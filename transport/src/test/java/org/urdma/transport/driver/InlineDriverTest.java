package org.urdma.transport.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** Devices driven inline: the threads that poll their CQs run the engine passes; control calls run inside passes. */
class InlineDriverTest {
    static MemoryFabric fabric(ImpairmentConfig aToB) {
        return new MemoryFabric(DeviceConfig.named("in-a", 1), DeviceConfig.named("in-b", 2),
                MemoryLink.Config.defaults().withLatency(0), MemoryFabric.CodecFactory.wire(FramingKind.ROCE2),
                aToB, ImpairmentConfig.none(), 3, System.nanoTime());
    }

    static WorkCompletion[] holders() {
        WorkCompletion[] wcs = new WorkCompletion[8];
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        return wcs;
    }

    /** Polls until a RECV completes (send completions are checked and passed over). */
    static void awaitRecv(CompletionQueue cq, WorkCompletion[] wcs) {
        long end = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < end) {
            int k = cq.poll(wcs);
            for (int i = 0; i < k; i++) {
                assertEquals(WcStatus.SUCCESS, wcs[i].status, wcs[i].toString());
                if (wcs[i].opcode == WcOpcode.RECV) return;
            }
        }
        fail("no receive completion within 20 s");
    }

    @Test
    void aPingPongRunsOnTheTwoPollingThreadsAloneAndSurvivesLossThroughTheTimers() throws Exception {
        MemoryFabric f = fabric(ImpairmentConfig.random(0.02, 0, 0, 11));
        try (Arena arena = Arena.ofShared(); InlineDriver da = new InlineDriver(f.a); InlineDriver db = new InlineDriver(f.b)) {
            assertTrue(f.a.drivenInline());
            assertFalse(f.a.hasEngineThread());
            ProtectionDomain pa = f.a.allocPd(), pb = f.b.allocPd();
            CompletionQueue ca = f.a.createCq(64, null), cb = f.b.createCq(64, null);
            // setup: control calls queue and run inside passes made by the calling thread
            QueuePair[] qp = f.connect(pa, MemoryFabric.init(QpType.RC, ca, 32), pb, MemoryFabric.init(QpType.RC, cb, 32),
                    // ACK timeout 67 ms (perftest's): with retry_cnt 7 (seven retries) the run survives a peer thread
                    // descheduled for half a second on a crowded machine; at ~1 ms, 8 ms without the peer's polls ended it
                    MemoryFabric.Connection.defaults().withTimeout(14), 0, 0);
            MemoryRegion ma = pa.registerMemory(arena.allocate(128, 64), AccessFlags.LOCAL_WRITE);
            MemoryRegion mb = pb.registerMemory(arena.allocate(128, 64), AccessFlags.LOCAL_WRITE);
            int rounds = 300;
            AtomicBoolean clientDone = new AtomicBoolean();
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                WorkCompletion[] wcs = holders();
                SendWorkRequest wr = new SendWorkRequest();
                for (int i = 0; i < rounds; i++) {
                    qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(mb, 64, 64));
                    awaitRecv(cb, wcs);
                    long v = mb.segment().get(ValueLayout.JAVA_LONG, 64);
                    mb.segment().set(ValueLayout.JAVA_LONG, 0, v + 1);
                    qp[1].postSend(wr.reset().wrId(i).opcode(WrOpcode.SEND).addSge(mb, 0, 8));
                }
                // inline: a posted request leaves in the poster's next poll, and resends need polls too
                while (!clientDone.get()) cb.poll(wcs);
            });
            WorkCompletion[] wcs = holders();
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < rounds; i++) {
                qp[0].postRecv(new ReceiveWorkRequest().wrId(i).addSge(ma, 64, 64));
                ma.segment().set(ValueLayout.JAVA_LONG, 0, i * 10L);
                qp[0].postSend(wr.reset().wrId(i).opcode(WrOpcode.SEND).addSge(ma, 0, 8));
                try {
                    awaitRecv(ca, wcs);
                } catch (AssertionError e) {
                    if (server.isDone()) server.join(); // the server's failure is the cause
                    throw new AssertionError(e.getMessage() + " at round " + i + "; client " + f.a.link() + " sent "
                            + ((SoftQp) qp[0]).stats().get(Counter.SENT_PKTS) + ", server sent " + ((SoftQp) qp[1]).stats().get(Counter.SENT_PKTS));
                }
                assertEquals(i * 10L + 1, ma.segment().get(ValueLayout.JAVA_LONG, 64), "answer " + i);
            }
            clientDone.set(true);
            server.get(30, TimeUnit.SECONDS);
            assertTrue(((SoftQp) qp[0]).stats().get(Counter.RETRANSMITTED_PKTS) > 0, "2% loss: the ACK timer fired and resent");
        }
    }

    /**
     * perftest's latency loops wait for the ACK of their own message before they take the peer's answer; the answer
     * and the ACK leave in one pass (one kernel send on a real link), the ACK first, so the peer completes its
     * message while the answer is still on its way, and the coalesced ACK never goes out alone between the two.
     */
    @Test
    void aReplyPostedAfterAReceiveLeavesInOnePassBehindTheAckOfTheRequest() throws Exception {
        List<Integer> sentByB = new ArrayList<>();
        DeviceConfig ca = DeviceConfig.named("in-a", 1), cbConfig = DeviceConfig.named("in-b", 2);
        // the passes run at a time that does not move: on System.nanoTime a thread descheduled for the ACK timeout
        // (67 ms) between A's post and its poll resends the request, and B's ACK of the duplicate leaves alone
        long start = 1_000_000_000L;
        LongSupplier clock = () -> start;
        MemoryFabric f = new MemoryFabric(ca, cbConfig, MemoryLink.Config.defaults().withLatency(0),
                MemoryFabric.CodecFactory.wire(FramingKind.ROCE2), ImpairmentConfig.none(), ImpairmentConfig.none(), 5, start);
        // B's frames as they leave: untagged RoCEv2 over IPv4, so the BTH opcode is byte 14 + 20 + 8
        f.linkB.tap((frame, offset, length, now) -> sentByB.add(frame.getByte(offset + 42) & 0xFF));
        try (Arena arena = Arena.ofConfined(); InlineDriver da = new InlineDriver(f.a, new BusySpinIdleStrategy(), clock);
             InlineDriver db = new InlineDriver(f.b, new BusySpinIdleStrategy(), clock)) {
            ProtectionDomain pa = f.a.allocPd(), pb = f.b.allocPd();
            CompletionQueue qa = f.a.createCq(64, null), qb = f.b.createCq(64, null);
            QueuePair[] qp = f.connect(pa, MemoryFabric.init(QpType.RC, qa, 32), pb, MemoryFabric.init(QpType.RC, qb, 32),
                    MemoryFabric.Connection.defaults(), 0, 0);
            MemoryRegion ma = pa.registerMemory(arena.allocate(128, 64), AccessFlags.LOCAL_WRITE);
            MemoryRegion mb = pb.registerMemory(arena.allocate(128, 64), AccessFlags.LOCAL_WRITE);
            WorkCompletion[] wcs = holders();
            SendWorkRequest wr = new SendWorkRequest();
            for (int round = 0; round < 3; round++) {
                qp[1].postRecv(new ReceiveWorkRequest().wrId(round).addSge(mb, 64, 64));
                qp[0].postRecv(new ReceiveWorkRequest().wrId(round).addSge(ma, 64, 64));
                qp[0].postSend(wr.reset().wrId(round).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(ma, 0, 8));
                assertEquals(0, qa.poll(wcs), "the request leaves in A's pass");
                sentByB.clear();
                awaitRecv(qb, wcs); // B's pass takes the request; its ACK is held for the next pass
                assertEquals(List.of(), sentByB, "no ACK alone in the pass that took the request");
                qp[1].postSend(wr.reset().wrId(round).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(mb, 0, 8));
                qb.poll(wcs);
                assertEquals(List.of(Opcode.RC_ACKNOWLEDGE, Opcode.RC_SEND_ONLY),
                        sentByB, "round " + round + ": the ACK of A's request, then B's answer, in one pass");
                // A's own SEND completes first (the ACK came first), then the answer arrives
                List<WcOpcode> atA = new ArrayList<>();
                for (int polls = 0; polls < 10 && atA.size() < 2; polls++) {
                    int k = qa.poll(wcs);
                    for (int i = 0; i < k; i++) {
                        assertEquals(WcStatus.SUCCESS, wcs[i].status);
                        atA.add(wcs[i].opcode);
                    }
                }
                assertEquals(List.of(WcOpcode.SEND, WcOpcode.RECV), atA);
                // A acknowledges the answer in its next pass, and B's answer completes
                assertEquals(0, qa.poll(wcs));
                assertEquals(1, qb.poll(wcs));
                assertEquals(WcOpcode.SEND, wcs[0].opcode);
            }
        }
    }

    /** The driver's clock, not the wall's, says when a timer is due: a test that holds it still sees none fire. */
    @Test
    void theAckTimerFollowsTheDriversClockNotTheWall() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("in-a", 1), DeviceConfig.named("in-b", 2),
                MemoryLink.Config.defaults().withLatency(0), MemoryFabric.CodecFactory.wire(FramingKind.ROCE2),
                ImpairmentConfig.none(), ImpairmentConfig.none(), 7, clock.get());
        try (Arena arena = Arena.ofConfined(); InlineDriver da = new InlineDriver(f.a, new BusySpinIdleStrategy(), clock::get);
             InlineDriver db = new InlineDriver(f.b, new BusySpinIdleStrategy(), clock::get)) {
            ProtectionDomain pa = f.a.allocPd(), pb = f.b.allocPd();
            CompletionQueue qa = f.a.createCq(16, null), qb = f.b.createCq(16, null);
            QueuePair[] qp = f.connect(pa, MemoryFabric.init(QpType.RC, qa, 8), pb, MemoryFabric.init(QpType.RC, qb, 8),
                    MemoryFabric.Connection.defaults(), 0, 0); // ACK timeout 67 ms
            MemoryRegion ma = pa.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(1).addSge(pb.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE), 0, 64));
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(ma, 0, 8));
            WorkCompletion[] wcs = holders();
            Thread.sleep(100); // B never polls, so no ACK comes; the wall passes the timeout, the clock does not
            assertEquals(0, qa.poll(wcs));
            assertEquals(0, ((SoftQp) qp[0]).stats().get(Counter.ACK_TIMEOUTS), "no timer fired at a clock that stood still");
            clock.addAndGet(100_000_000L);
            assertEquals(0, qa.poll(wcs));
            assertEquals(1, ((SoftQp) qp[0]).stats().get(Counter.ACK_TIMEOUTS), "the clock passed the ACK timeout");
        }
    }

    /**
     * A QP destroyed right after its last receive completed still sends the ACK it owed: the peer's request did complete
     * here, and without the ACK the peer would retry into a QP that is gone until RETRY_EXC_ERR.
     */
    @Test
    void aQpDestroyedRightAfterItsLastReceiveStillAcknowledgesIt() throws Exception {
        LongSupplier clock = () -> 1_000_000_000L;
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("in-a", 1), DeviceConfig.named("in-b", 2),
                MemoryLink.Config.defaults().withLatency(0), MemoryFabric.CodecFactory.wire(FramingKind.ROCE2),
                ImpairmentConfig.none(), ImpairmentConfig.none(), 9, clock.getAsLong());
        try (Arena arena = Arena.ofConfined(); InlineDriver da = new InlineDriver(f.a, new BusySpinIdleStrategy(), clock);
             InlineDriver db = new InlineDriver(f.b, new BusySpinIdleStrategy(), clock)) {
            ProtectionDomain pa = f.a.allocPd(), pb = f.b.allocPd();
            CompletionQueue qa = f.a.createCq(16, null), qb = f.b.createCq(16, null);
            QueuePair[] qp = f.connect(pa, MemoryFabric.init(QpType.RC, qa, 8), pb, MemoryFabric.init(QpType.RC, qb, 8),
                    MemoryFabric.Connection.defaults(), 0, 0);
            MemoryRegion ma = pa.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(1).addSge(pb.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE), 0, 64));
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(ma, 0, 8));
            WorkCompletion[] wcs = holders();
            assertEquals(0, qa.poll(wcs), "the request leaves in A's pass");
            awaitRecv(qb, wcs); // B's pass takes the request; its ACK is held for the next pass
            qp[1].close();
            int done = 0;
            for (int polls = 0; polls < 10 && done == 0; polls++) done = qa.poll(wcs);
            assertEquals(1, done, "A's SEND completed: B's owed ACK left before its QP went");
            assertEquals(WcStatus.SUCCESS, wcs[0].status);
        }
    }

    @Test
    void aControlCallFromAnotherThreadRunsInThePollersPassAndPassesNeverOverlap() throws Exception {
        MemoryFabric f = fabric(ImpairmentConfig.none());
        try (InlineDriver d = new InlineDriver(f.a)) {
            CompletionQueue cq = f.a.createCq(16, null);
            AtomicBoolean stop = new AtomicBoolean();
            WorkCompletion[] wcs = holders();
            Thread poller = Thread.ofPlatform().start(() -> {
                while (!stop.get()) cq.poll(wcs);
            });
            try {
                ProtectionDomain pd = f.a.allocPd();
                for (int i = 0; i < 20; i++) pd.createQp(MemoryFabric.init(QpType.RC, cq, 8)).close();
            } finally {
                stop.set(true);
                poller.join();
            }
            // a claimed engine is skipped by other pollers: no second pass runs meanwhile
            assertTrue(f.a.tryEnterEngine());
            long passes = f.a.stats().passes();
            Thread other = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 100; i++) cq.poll(wcs);
            });
            other.join();
            assertEquals(passes, f.a.stats().passes());
            f.a.exitEngine();
            cq.poll(wcs);
            assertEquals(passes + 1, f.a.stats().passes());
        }
    }

    /** A UC QP on each device, connected, with a CQ each and a registered region each (A 128 bytes, B 256). */
    record UcPair(QueuePair[] qp, CompletionQueue qa, CompletionQueue qb, MemoryRegion ma, MemoryRegion mb) {
        static UcPair of(MemoryFabric f, Arena arena) {
            ProtectionDomain pa = f.a.allocPd(), pb = f.b.allocPd();
            CompletionQueue qa = f.a.createCq(64, null), qb = f.b.createCq(64, null);
            QueuePair[] qp = f.connect(pa, MemoryFabric.init(QpType.UC, qa, 32), pb, MemoryFabric.init(QpType.UC, qb, 32),
                    MemoryFabric.Connection.defaults(), 0, 0);
            return new UcPair(qp, qa, qb, pa.registerMemory(arena.allocate(128, 64), AccessFlags.LOCAL_WRITE),
                    pb.registerMemory(arena.allocate(256, 64), AccessFlags.LOCAL_WRITE));
        }
    }

    /**
     * A post from a thread that can claim the engine sends at once, on that thread and without a pass (as rxe's
     * post_send runs the requester): a UC SEND's completion is in the CQ before any poll. One made while another thread
     * holds the engine goes through the post queue instead, and the next pass serves it.
     */
    @Test
    void aPostSendsAtOnceUnlessAnotherThreadHoldsTheEngineThenTheNextPassServesIt() throws Exception {
        MemoryFabric f = fabric(ImpairmentConfig.none());
        try (Arena arena = Arena.ofShared(); InlineDriver da = new InlineDriver(f.a); InlineDriver db = new InlineDriver(f.b)) {
            UcPair u = UcPair.of(f, arena);
            QueuePair[] qp = u.qp();
            CompletionQueue qa = u.qa(), qb = u.qb();
            MemoryRegion ma = u.ma(), mb = u.mb();
            WorkCompletion[] wcs = holders();
            SendWorkRequest wr = new SendWorkRequest();
            for (int round = 0; round < 2; round++) {
                qp[1].postRecv(new ReceiveWorkRequest().wrId(round).addSge(mb, 64, 64));
                ma.segment().set(ValueLayout.JAVA_LONG, 0, 100L + round);
                boolean contended = round == 1;
                if (contended) {
                    Thread holder = Thread.ofPlatform().start(() -> assertTrue(f.a.tryEnterEngine()));
                    holder.join();
                    assertFalse(f.a.tryEnterEngine(), "another thread holds A's engine");
                }
                long passes = f.a.stats().passes();
                qp[0].postSend(wr.reset().wrId(round).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(ma, 0, 8));
                assertEquals(passes, f.a.stats().passes(), "posting runs no pass");
                if (contended) {
                    assertTrue(f.a.hasPendingWork(), "the post waits for a pass");
                    assertEquals(0, qa.poll(wcs), "no pass while the engine is held");
                    f.a.exitEngine();
                    assertEquals(1, qa.poll(wcs), "the next pass sends it (UC completes on sending)");
                    assertEquals(passes + 1, f.a.stats().passes(), "one pass");
                } else {
                    assertFalse(f.a.hasPendingWork(), "the post sent it");
                    assertEquals(1, qa.poll(wcs), "the completion is there before any pass");
                    assertEquals(passes, f.a.stats().passes(), "no pass ran");
                }
                assertEquals(WcOpcode.SEND, wcs[0].opcode);
                awaitRecv(qb, wcs);
                assertEquals(100L + round, mb.segment().get(ValueLayout.JAVA_LONG, 64));
            }
        }
    }

    /**
     * An inline pass returns a completion as soon as a received packet makes one: the frames behind it stay in the link
     * for the next poll, so a poll with room for eight completions gets one per pass.
     */
    @Test
    void anInlinePassEndsItsReceiveBurstAtTheFirstCompletion() throws Exception {
        MemoryFabric f = fabric(ImpairmentConfig.none());
        try (Arena arena = Arena.ofShared(); InlineDriver da = new InlineDriver(f.a); InlineDriver db = new InlineDriver(f.b)) {
            UcPair u = UcPair.of(f, arena);
            QueuePair[] qp = u.qp();
            CompletionQueue qa = u.qa(), qb = u.qb();
            MemoryRegion ma = u.ma(), mb = u.mb();
            for (int i = 0; i < 3; i++) qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(mb, 64 * i, 64));
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < 3; i++) qp[0].postSend(wr.reset().wrId(i).opcode(WrOpcode.SEND).addSge(ma, 0, 8));
            WorkCompletion[] wcs = holders();
            qa.poll(wcs); // A's pass sends all three
            long frames = f.linkB.receivedFrames();
            for (int i = 0; i < 3; i++) {
                assertEquals(1, qb.poll(wcs), "poll " + i + ": one completion per pass");
                assertEquals(WcOpcode.RECV, wcs[0].opcode);
                assertEquals(i, wcs[0].wrId);
                assertEquals(frames + i + 1, f.linkB.receivedFrames(), "the frames behind it stay in the link");
            }
            assertEquals(0, qb.poll(wcs));
        }
    }

    @Test
    void aDeviceHasOneKindOfDriverAtATime() {
        MemoryFabric f = fabric(ImpairmentConfig.none());
        try (RealTimeDriver t = new RealTimeDriver(f.a, RealTimeDriver.Idle.BACKOFF)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new InlineDriver(f.a));
            assertTrue(e.getMessage().contains("in-a"), e.getMessage());
        }
        try (InlineDriver d = new InlineDriver(f.a)) {
            assertThrows(IllegalStateException.class, () -> new RealTimeDriver(f.a, RealTimeDriver.Idle.BACKOFF));
        }
        // after both closed, control calls run on the caller again
        assertEquals(EngineDriver.Mode.INLINE, EngineDriver.Mode.parse("inline"));
        assertEquals(EngineDriver.Mode.THREAD, EngineDriver.Mode.parse("agent"));
        assertThrows(IllegalArgumentException.class, () -> EngineDriver.Mode.parse("fast"));
        assertNotNull(f.a.allocPd());
    }
}
