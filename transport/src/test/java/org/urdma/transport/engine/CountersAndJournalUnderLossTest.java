package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.CountersFile;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.counters.EngineStatReport;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.journal.EventType;
import org.urdma.transport.journal.Journal;
import org.urdma.transport.journal.JournalEvent;
import org.urdma.transport.journal.JournalReader;
import org.urdma.transport.journal.RetransmitReason;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * Under 1 % loss (A to B; B to A lossless, so every NAK B sends reaches A) the engine counters, the capture of both
 * link ends, the requester's and responder's views, the counters file and the journal all tell the same numbers.
 */
class CountersAndJournalUnderLossTest {
    static final long MS = 1_000_000L;
    static final int WRITES = 300, SENDS = 100, SIZE = 8192;

    @TempDir
    Path dir;

    /** What a capture at one sender's port sees: frames, request PSNs sent more than once, NAKs by kind. */
    static final class Capture implements MemoryLink.FrameTap {
        final Framing framing = Framings.of(FramingKind.ROCE2);
        final Packet p = new Packet();
        final Set<Integer> psns = new HashSet<>();
        final List<Integer> resentPsns = new ArrayList<>();
        long frames, seqNaks, otherNaks;

        @Override
        public void onFrame(DirectBuffer f, int off, int len, long now) {
            assertEquals(DecodeStatus.OK, framing.decode(f, off, len, p), "the engine sent an undecodable frame");
            frames++;
            if (p.opcode == Opcode.RC_ACKNOWLEDGE) {
                if ((p.aethSyndrome & Aeth.SYNDROME_TYPE) == Aeth.SYNDROME_NAK) {
                    if ((p.aethSyndrome & 0x1F) == Aeth.NAK_PSN_SEQUENCE_ERROR) seqNaks++;
                    else otherNaks++;
                }
            } else if (!OpcodeTable.has(p.opcode, OpcodeTable.ACK) && !psns.add(p.psn)) {
                resentPsns.add(p.psn); // WRITE and SEND packets: one PSN each
            }
        }
    }

    /** One seeded run: 300 8 KiB WRITEs and 100 8 KiB SENDs from A to B, 1 % of A's frames lost. */
    static final class Run {
        final Rig rig;
        final QueuePair a, b;
        final Capture capA = new Capture(), capB = new Capture();

        Run(MemoryFabric.Telemetry telemetry) {
            rig = new Rig(ImpairmentConfig.random(0.01, 0, 0, 7), ImpairmentConfig.none(), telemetry);
            QueuePair[] qp = rig.connect(org.urdma.verbs.QpType.RC,
                    MemoryFabric.Connection.defaults().withTimeout(8), 1024);
            a = qp[0];
            b = qp[1];
            rig.fabric.linkA.tap(capA);
            rig.fabric.linkB.tap(capB);
        }

        void traffic() {
            MemoryRegion src = rig.mrA(SIZE, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = rig.mrB((long) SIZE * (SENDS + 1), AccessFlags.ALL);
            for (int i = 0; i < SENDS; i++) {
                b.postRecv(new ReceiveWorkRequest().wrId(i).addSge(dst, (long) SIZE * (i + 1), SIZE));
            }
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < WRITES + SENDS; i++) {
                wr.reset().wrId(i).flags(org.urdma.verbs.SendFlags.SIGNALED).addSge(src, 0, SIZE);
                if (i % 4 == 3 && i / 4 < SENDS) wr.opcode(WrOpcode.SEND);
                else wr.opcode(WrOpcode.RDMA_WRITE).remote(dst.address(), dst.rkey());
                a.postSend(wr);
            }
            for (WorkCompletion wc : rig.awaitA(WRITES + SENDS, 2_000 * MS)) assertEquals(WcStatus.SUCCESS, wc.status, wc.toString());
            assertEquals(SENDS, rig.awaitB(SENDS, 100 * MS).size());
        }
    }

    private static long qp(QueuePair q, Counter c) {
        return ((SoftQp) q).counters().get(c);
    }

    private static List<JournalEvent> events(Path q) {
        List<JournalEvent> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(q)) {
            while (r.poll(JournalReader.Filter.ALL, out::add) > 0) {
                // read all
            }
        }
        return out;
    }

    @Test
    void countersCaptureJournalAndTheCountersFileAgreeUnderOnePercentLoss() {
        Path q = dir.resolve("run" + Journal.SUFFIX);
        try (Journal journal = Journal.open(q).start();
             EngineCounters ca = EngineCounters.open(dir, "a", 16); EngineCounters cb = EngineCounters.open(dir, "b", 16)) {
            Run run = new Run(new MemoryFabric.Telemetry() {
                public EngineCounters counters(DeviceConfig c) {
                    return c.name().equals("a") ? ca : cb;
                }

                public EventJournal journal(DeviceConfig c, EngineCounters counters) {
                    return journal.device(c.name(), counters);
                }
            });
            run.traffic();
            QueuePair a = run.a, b = run.b;
            Capture capA = run.capA, capB = run.capB;

            // retransmissions: the requester's count is what the capture shows went out twice
            long resent = ((SoftQp) a).stats().get(Counter.RETRANSMITTED_PKTS);
            assertTrue(resent > 0 && run.rig.fabric.linkA.lostFrames() > 0, "loss happened and was repaired");
            assertEquals(capA.resentPsns.size(), resent, "retransmitted_pkts == request PSNs the capture saw again");
            // NAKs: sent by B == in B's capture == received by A == sequence errors at A == gaps at B (one NAK each)
            long naks = qp(b, Counter.NAKS_SENT);
            assertTrue(naks > 0);
            assertEquals(0, capB.otherNaks);
            assertEquals(capB.seqNaks, naks, "naks_sent == NAK frames B sent");
            assertEquals(naks, qp(a, Counter.NAKS_RCVD), "NAKs sent by B == NAKs received by A");
            assertEquals(naks, qp(a, Counter.RCVD_SEQ_ERR));
            assertEquals(naks, qp(b, Counter.OUT_OF_SEQ_REQUEST), "one NAK per sequence gap");
            assertTrue(qp(b, Counter.DUPLICATE_REQUEST) >= 0 && qp(a, Counter.COMPLETER_RETRY_ERR) > 0);
            // packets and bytes: each side's sent == its capture; B accepted what its link delivered
            assertEquals(capA.frames, qp(a, Counter.SENT_PKTS));
            assertEquals(capB.frames, qp(b, Counter.SENT_PKTS));
            assertEquals(run.rig.fabric.linkB.receivedFrames(), qp(b, Counter.RCVD_PKTS));
            assertEquals(run.rig.fabric.linkA.receivedFrames(), qp(a, Counter.RCVD_PKTS));
            assertEquals(SENDS, qp(a, Counter.RDMA_SENDS));
            assertEquals(SENDS, qp(b, Counter.RDMA_RECVS));
            assertTrue(qp(a, Counter.SENT_BYTES) > (long) SIZE * (WRITES + SENDS));

            // the counters file holds the same numbers, per QP and in the device totals, while the engine is live
            try (CountersFile.Snapshot s = CountersFile.read(ca.path())) {
                Map<String, Long> v = EngineStatReport.values(s.reader());
                assertEquals(resent, v.get("a qp " + a.qpNum() + " retransmitted_pkts"));
                assertEquals(resent, v.get("a retransmitted_pkts"));
                assertEquals(naks, v.get("a qp " + a.qpNum() + " naks_rcvd"));
                assertEquals(naks, v.get("a rcvd_seq_err"));
            }
            try (CountersFile.Snapshot s = CountersFile.read(cb.path())) {
                Map<String, Long> v = EngineStatReport.values(s.reader());
                assertEquals(naks, v.get("b qp " + b.qpNum() + " naks_sent"));
                assertEquals(naks, v.get("b out_of_seq_request"));
            }

            // the journal: every retransmitted PSN, why, and every NAK, nothing lost
            journal.close();
            List<JournalEvent> ev = events(q);
            List<Integer> journalled = new ArrayList<>();
            long sum = 0;
            for (JournalEvent e : ev) {
                if (e.type() != EventType.RETRANSMIT) continue;
                assertEquals("a", e.device());
                assertEquals(a.qpNum(), e.qpn());
                RetransmitReason why = RetransmitReason.values()[e.c()];
                assertTrue(why == RetransmitReason.NAK || why == RetransmitReason.TIMEOUT, e.toString());
                for (int i = 0; i < e.b(); i++) journalled.add((e.a() + i) & 0xFFFFFF);
                sum += e.b();
            }
            assertEquals(resent, sum, "journalled retransmissions == retransmitted_pkts");
            List<Integer> captured = new ArrayList<>(run.capA.resentPsns);
            captured.sort(null);
            journalled.sort(null);
            assertEquals(captured, journalled, "the journal names every PSN the capture saw resent");
            assertEquals(naks, ev.stream().filter(e -> e.type() == EventType.NAK_SENT && e.device().equals("b")).count());
            assertEquals(naks, ev.stream().filter(e -> e.type() == EventType.NAK_RCVD && e.device().equals("a")).count());
            assertEquals(List.of("RESET>INIT", "INIT>RTR", "RTR>RTS"), ev.stream()
                    .filter(e -> e.type() == EventType.QP_STATE && e.qpn() == a.qpNum())
                    .map(e -> QpState.values()[e.a()] + ">" + QpState.values()[e.b()]).toList());
            assertEquals(0, ca.get(Counter.JOURNAL_EVENTS_LOST) + cb.get(Counter.JOURNAL_EVENTS_LOST));
            System.out.printf("1%% loss: %d frames lost, %d retransmitted (%d RETRANSMIT events), %d NAKs, %d ACK timeouts, "
                    + "%d journal events%n", run.rig.fabric.linkA.lostFrames(), resent,
                    ev.stream().filter(e -> e.type() == EventType.RETRANSMIT).count(), naks, qp(a, Counter.ACK_TIMEOUTS), ev.size());
            run.rig.close();
        }
    }

    @Test
    void aTinyRingCountsLostEventsAndTheEngineRunsOn() {
        // the same seeded run twice: with room for everything, then with a ring of a few records
        long expected;
        Path big = dir.resolve("big" + Journal.SUFFIX);
        try (Journal journal = Journal.open(big).start()) {
            Run run = new Run(journalled(journal));
            run.traffic();
            run.rig.close();
            journal.close();
            assertEquals(0, run.rig.fabric.a.journal().lost() + run.rig.fabric.b.journal().lost());
            expected = events(big).stream().filter(e -> e.type() != EventType.LOST).count();
        }
        assertTrue(expected > 100, expected + " events");
        Path tiny = dir.resolve("tiny" + Journal.SUFFIX);
        EngineCounters[] made = new EngineCounters[2];
        try (Journal journal = Journal.open(tiny, Journal.MIN_RING_CAPACITY).start()) {
            Run run = new Run(new MemoryFabric.Telemetry() {
                public EngineCounters counters(DeviceConfig c) {
                    return made[c.name().equals("a") ? 0 : 1] = EngineCounters.inMemory(c.name());
                }

                public EventJournal journal(DeviceConfig c, EngineCounters counters) {
                    return journal.device(c.name(), counters);
                }
            });
            run.traffic(); // completes: the engine never waits for the journal
            run.rig.close();
        }
        long lost = made[0].get(Counter.JOURNAL_EVENTS_LOST) + made[1].get(Counter.JOURNAL_EVENTS_LOST);
        long kept = events(tiny).stream().filter(e -> e.type() != EventType.LOST).count();
        assertTrue(lost > 0, "a ring of a few records loses events");
        assertEquals(expected, kept + lost, "journalled + lost == what the engine wrote");
        System.out.printf("tiny ring: %d events written, %d journalled, %d lost%n", expected, kept, lost);
    }

    /** Counters in memory; the journal writer of each device from {@code journal}. */
    private static MemoryFabric.Telemetry journalled(Journal journal) {
        return new MemoryFabric.Telemetry() {
            public EngineCounters counters(DeviceConfig c) {
                return null;
            }

            public EventJournal journal(DeviceConfig c, EngineCounters counters) {
                return journal.device(c.name(), counters);
            }
        };
    }

    /** READs lose requests and responses: resent READ requests (one packet for many PSNs) count as one packet each. */
    @Test
    void readsUnderLossBothWaysJournalEveryResentPacketWithItsReason() {
        Path q = dir.resolve("reads" + Journal.SUFFIX);
        try (Journal journal = Journal.open(q).start();
             Rig r = new Rig(ImpairmentConfig.random(0.01, 0, 0, 3), ImpairmentConfig.random(0.01, 0, 0, 4), journalled(journal))) {
            QueuePair[] qp = r.connect(org.urdma.verbs.QpType.RC, MemoryFabric.Connection.defaults().withTimeout(8), 256);
            MemoryRegion src = r.mrB(SIZE, AccessFlags.ALL);
            MemoryRegion dst = r.mrA(SIZE, AccessFlags.LOCAL_WRITE);
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < 200; i++) {
                qp[0].postSend(wr.reset().wrId(i).flags(org.urdma.verbs.SendFlags.SIGNALED).opcode(WrOpcode.RDMA_READ)
                        .addSge(dst, 0, SIZE).remote(src.address(), src.rkey()));
            }
            for (WorkCompletion wc : r.awaitA(200, 5_000 * MS)) assertEquals(WcStatus.SUCCESS, wc.status, wc.toString());
            journal.close();
            long resent = ((SoftQp) qp[0]).stats().get(Counter.RETRANSMITTED_PKTS);
            assertTrue(resent > 0);
            long sum = 0;
            Set<RetransmitReason> why = new HashSet<>();
            for (JournalEvent e : events(q)) {
                if (e.type() != EventType.RETRANSMIT) continue;
                sum += e.b();
                why.add(RetransmitReason.values()[e.c()]);
            }
            assertEquals(resent, sum);
            assertTrue(why.contains(RetransmitReason.READ_GAP), "lost responses are READ gaps: " + why);
        }
    }

    @Test
    void dropsAreCountedByReasonOnTheDeviceAndTheQpAndJournalled() {
        Path q = dir.resolve("drops" + Journal.SUFFIX);
        try (Journal journal = Journal.open(q); Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), journalled(journal))) {
            QueuePair[] qp = r.rc();
            Frames frames = new Frames(r.fabric);
            Packet p = frames.packet();
            p.opcode = Opcode.RC_SEND_ONLY;
            p.destQp = 0x7654;
            p.psn = 5;
            assertTrue(frames.send(p, r.sim.now()));
            p.destQp = qp[1].qpNum();
            p.pkey = 0x8001;
            assertTrue(frames.send(p, r.sim.now()));
            p.pkey = 0xFFFF;
            p.opcode = Opcode.UD_SEND_ONLY;
            assertTrue(frames.send(p, r.sim.now()));
            // a frame whose ICRC does not match its contents
            Framing f = Framings.of(FramingKind.ROCE2);
            UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            p.opcode = Opcode.RC_SEND_ONLY;
            int len = f.encode(p, frame, 0);
            frame.putByte(len - 5, (byte) (frame.getByte(len - 5) ^ 1));
            assertTrue(r.fabric.linkA.inject(frame, 0, len, r.sim.now()));
            r.run(MS);
            SoftDevice b = r.fabric.b;
            QpCounters c = ((SoftQp) qp[1]).counters();
            assertEquals(1, b.counters().get(Counter.DROP_UNKNOWN_QP));
            assertEquals(1, c.get(Counter.DROP_BAD_PKEY));
            assertEquals(1, c.get(Counter.DROP_BAD_OPCODE));
            assertEquals(1, b.counters().get(Counter.DROP_BAD_ICRC) + b.counters().get(Counter.DROP_MALFORMED));
            assertEquals(1, b.stats().get(Counter.DROP_UNKNOWN_QP));
            assertEquals(1, b.stats().get(Counter.DROP_BAD_PKEY));
            assertEquals(1, b.stats().qpDrops());
            journal.agent().doWork();
            List<String> drops = events(q).stream().filter(e -> e.type() == EventType.DROP)
                    .map(e -> e.device() + " " + e.qpn() + " " + Counter.of(e.a()).label()).toList();
            assertEquals(List.of("b " + 0x7654 + " drop_unknown_qp", "b " + qp[1].qpNum() + " drop_bad_pkey",
                    "b " + qp[1].qpNum() + " drop_bad_opcode", "b -1 " + (b.counters().get(Counter.DROP_BAD_ICRC) == 1
                            ? "drop_bad_icrc" : "drop_malformed")), drops);
        }
    }
}
