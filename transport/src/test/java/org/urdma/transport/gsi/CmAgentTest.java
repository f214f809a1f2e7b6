package org.urdma.transport.gsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Two CM agents joined by a lossy in-memory GSI under a virtual clock, with QPs that record what the CM made them do. */
class CmAgentTest {
    static final long SID = PortSpace.TCP.serviceId(7471);
    static final byte[] GID_A = gid(1);
    static final byte[] GID_B = gid(2);
    static final CmPeer PEER_A = new CmPeer(GID_A, new byte[] {2, 0, 0, 0, 0, 1}, 1);
    static final CmPeer PEER_B = new CmPeer(GID_B, new byte[] {2, 0, 0, 0, 0, 2}, 1);
    static final CmConfig CONFIG = new CmConfig(10, 3, 14); // 4.2 ms per try

    static byte[] gid(int last) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        g[12] = 10;
        g[15] = (byte) last;
        return g;
    }

    record Wire(byte[] mad, CmAgent to, CmPeer from) {
        int attribute() {
            return Mad.attributeId(new UnsafeBuffer(mad), 0);
        }
    }

    final ArrayDeque<Wire> inFlight = new ArrayDeque<>();
    final List<Integer> sent = new ArrayList<>();
    /** Every MAD either agent sent, as encoded, lost or not. */
    final List<Wire> onWire = new ArrayList<>();
    Predicate<Wire> lose = w -> false;
    CmAgent a;
    CmAgent b;
    long now = 1_000_000;

    CmAgentTest() {
        a = new CmAgent(CONFIG, (m, o, to) -> post(m, o, PEER_A, to), new SplittableRandom(1), 0x0200000000000001L, GID_A);
        b = new CmAgent(CONFIG, (m, o, to) -> post(m, o, PEER_B, to), new SplittableRandom(2), 0x0200000000000002L, GID_B);
    }

    void post(DirectBuffer m, int o, CmPeer from, CmPeer to) {
        byte[] copy = new byte[Mad.SIZE];
        m.getBytes(o, copy);
        Wire w = new Wire(copy, to.equals(PEER_A) ? a : b, from);
        sent.add(w.attribute());
        onWire.add(w);
        if (!lose.test(w)) inFlight.add(w);
    }

    /** Delivers until quiet; returns MADs delivered. */
    int deliver() {
        int n = 0;
        Wire w;
        while ((w = inFlight.poll()) != null) {
            w.to.onMad(new UnsafeBuffer(w.mad), 0, Mad.SIZE, w.from, now);
            n++;
        }
        return n;
    }

    void advance(long nanos) {
        long end = now + nanos;
        while (now < end) {
            now = Math.min(end, Math.min(a.nextDeadline(), b.nextDeadline()));
            a.poll(now);
            b.poll(now);
            deliver();
        }
    }

    static final class FakeQp implements CmId.Qp {
        final int qpn;
        final List<String> states = new ArrayList<>();
        int remoteQpn = -1;
        int remotePsn = -1;

        FakeQp(int qpn) {
            this.qpn = qpn;
        }

        @Override
        public int qpn() {
            return qpn;
        }

        @Override
        public void toRtr(CmId id) {
            states.add("RTR");
            remoteQpn = id.remoteQpn();
            remotePsn = id.remotePsn();
        }

        @Override
        public void toRts(CmId id) {
            states.add("RTS");
        }

        @Override
        public void toError(CmId id) {
            states.add("ERR");
        }
    }

    static final class Recorder implements CmId.Events, CmAgent.Listener {
        final List<String> events = new ArrayList<>();
        final List<CmId> requests = new ArrayList<>();
        int reason = -1;
        byte[] privateData;

        @Override
        public void onRequest(CmId id) {
            requests.add(id);
            events.add("request");
        }

        @Override
        public void onEstablished(CmId id) {
            events.add("established");
            privateData = id.peerPrivateData();
        }

        @Override
        public void onRejected(CmId id, int r, byte[] pd) {
            events.add("rejected");
            reason = r;
            privateData = pd;
        }

        @Override
        public void onTimeout(CmId id) {
            events.add("timeout");
        }

        @Override
        public void onDisconnected(CmId id) {
            events.add("disconnected");
        }

        @Override
        public void onSidrReply(CmId id, int status, int qpn, int qkey, byte[] pd) {
            events.add("sidr " + status + " " + Integer.toHexString(qpn) + " " + Integer.toHexString(qkey));
        }
    }

    final FakeQp qpA = new FakeQp(0x111);
    final FakeQp qpB = new FakeQp(0x222);
    final Recorder client = new Recorder();
    final Recorder server = new Recorder();

    CmId connect(byte[] pd) {
        CmId id = a.newId().qpParameters(0x123456, 5, 4, 4);
        return a.connect(id, SID, PEER_B, GID_B, qpA, client, pd, now);
    }

    void acceptFirst(byte[] pd) {
        CmId r = server.requests.get(0);
        b.accept(r.qpParameters(0x654321, 5, 4, 4), qpB, server, pd, now);
    }

    @Test
    void reqRepRtuConnectsBothQpsInTheSpecsOrder() {
        b.listen(SID, server);
        connect(new byte[] {1, 2, 3});
        deliver();
        assertEquals(List.of("request"), server.events);
        CmId r = server.requests.get(0);
        assertEquals(0x111, r.remoteQpn());
        assertEquals(0x123456, r.remotePsn());
        assertEquals(4096, r.mtuBytes());
        assertArrayEquals(new byte[] {1, 2, 3}, Arrays.copyOf(r.peerPrivateData(), 3));
        assertEquals(List.of(), qpB.states);
        b.accept(r.qpParameters(0x654321, 5, 4, 4), qpB, server, new byte[] {9}, now);
        assertEquals(List.of("RTR"), qpB.states); // RTR with the REP, before the RTU
        deliver();
        assertEquals(List.of("RTR", "RTS"), qpA.states);
        assertEquals(0x222, qpA.remoteQpn);
        assertEquals(0x654321, qpA.remotePsn);
        assertEquals(0x123456, qpB.remotePsn);
        assertEquals(List.of("RTR", "RTS"), qpB.states);
        assertEquals(List.of("established"), client.events);
        assertEquals(List.of("request", "established"), server.events);
        assertEquals(9, client.privateData[0]);
        assertEquals(List.of(CmAttribute.REQ, CmAttribute.REP, CmAttribute.RTU), sent);
    }

    @Test
    void aServiceNobodyListensOnIsRejectedAtOnce() {
        connect(null);
        deliver(); // REQ there, REJ back: one round trip, no time passes
        assertEquals(List.of("rejected"), client.events);
        assertEquals(CmRej.INVALID_SERVICE_ID, client.reason);
        assertEquals(List.of("ERR"), qpA.states);
        assertEquals(0, a.connections());
    }

    @Test
    void theApplicationsRefusalCarriesItsPrivateData() {
        b.listen(SID, server);
        connect(null);
        deliver();
        b.reject(server.requests.get(0), CmRej.CONSUMER_DEFINED, new byte[] {42}, now);
        deliver();
        assertEquals(List.of("rejected"), client.events);
        assertEquals(CmRej.CONSUMER_DEFINED, client.reason);
        assertEquals(42, client.privateData[0]);
        assertEquals(0, b.connections());
    }

    @Test
    void aLostReqIsResentAfterTheResponseTimeout() {
        b.listen(SID, server);
        lose = w -> w.attribute() == CmAttribute.REQ && sent.stream().filter(x -> x == CmAttribute.REQ).count() == 1;
        connect(null);
        deliver();
        assertTrue(server.requests.isEmpty());
        advance(CmConfig.nanos(CONFIG.responseTimeout()));
        assertEquals(1, server.requests.size());
        acceptFirst(null);
        deliver();
        assertEquals(List.of("established"), client.events);
        assertEquals(1, a.stats().retries);
    }

    @Test
    void aLostRepOrRtuIsRecoveredByTheRepsRetryAndADuplicateReqMakesNoSecondConnection() {
        b.listen(SID, server);
        lose = w -> w.attribute() == CmAttribute.REP && sent.stream().filter(x -> x == CmAttribute.REP).count() == 1;
        connect(null);
        deliver();
        acceptFirst(null);
        deliver();
        assertEquals(List.of(), client.events);
        // the active side resends its REQ first: the duplicate is answered with the REP again
        advance(CmConfig.nanos(CONFIG.responseTimeout()));
        assertEquals(List.of("established"), client.events);
        assertEquals(1, server.requests.size());
        assertEquals(1, b.stats().duplicates);
        assertEquals(List.of("RTR", "RTS"), qpB.states);

        // now lose the RTU of a second connection: the passive side's REP retry brings it again
        sent.clear();
        server.requests.clear();
        lose = w -> w.attribute() == CmAttribute.RTU && sent.stream().filter(x -> x == CmAttribute.RTU).count() == 1;
        FakeQp qpA2 = new FakeQp(0x333);
        FakeQp qpB2 = new FakeQp(0x444);
        Recorder c2 = new Recorder();
        Recorder s2 = new Recorder();
        a.connect(a.newId().qpParameters(1, 3, 1, 1), SID, PEER_B, GID_B, qpA2, c2, null, now);
        deliver();
        b.accept(server.requests.get(0), qpB2, s2, null, now);
        deliver();
        assertEquals(List.of("established"), c2.events);
        assertEquals(List.of("RTR"), qpB2.states);
        advance(CmConfig.nanos(CONFIG.responseTimeout()));
        assertEquals(List.of("RTR", "RTS"), qpB2.states);
        assertEquals(List.of("established"), s2.events);
        assertEquals(List.of("RTR", "RTS"), qpA2.states); // the duplicate REP did not move the active QP again
    }

    @Test
    void aLateAnswerIsAnnouncedWithAnMraSoTheActiveSideWaitsInsteadOfGivingUp() {
        b.listen(SID, server);
        connect(null);
        deliver();
        // the application thinks for longer than all of the active side's retries would last
        advance(CmConfig.nanos(CONFIG.responseTimeout()) * (CONFIG.maxRetries() + 2));
        assertTrue(sent.contains(CmAttribute.MRA));
        assertEquals(List.of(), client.events);
        acceptFirst(null);
        deliver();
        assertEquals(List.of("established"), client.events);
        assertEquals(1, b.stats().mrasSent);
        assertEquals(0, a.stats().retries);
    }

    @Test
    void aPeerThatNeverAnswersEndsInTimeoutAfterEveryRetry() {
        lose = w -> true;
        connect(null);
        advance(CmConfig.nanos(CONFIG.responseTimeout()) * (CONFIG.maxRetries() + 2));
        assertEquals(List.of("timeout"), client.events);
        assertEquals(CONFIG.maxRetries(), a.stats().retries);
        assertEquals(CONFIG.maxRetries() + 2, sent.size()); // REQ, its retries, then a REJ (timeout)
        assertEquals(CmAttribute.REJ, (int) sent.get(sent.size() - 1));
        assertEquals(0, a.connections());
    }

    @Test
    void disconnectRunsDreqDrepAndBothQpsGoToError() {
        b.listen(SID, server);
        CmId id = connect(null);
        deliver();
        acceptFirst(null);
        deliver();
        a.disconnect(id, null, now);
        deliver();
        assertEquals(List.of("established", "disconnected"), client.events);
        assertEquals(List.of("request", "established", "disconnected"), server.events);
        assertEquals("ERR", qpA.states.get(qpA.states.size() - 1));
        assertEquals("ERR", qpB.states.get(qpB.states.size() - 1));
        advance(CmConfig.nanos(CONFIG.responseTimeout()) + 1);
        assertEquals(0, a.connections());
        assertEquals(0, b.connections());
    }

    @Test
    void sidrAnswersWithTheListenersUdQpOrNotSupported() {
        b.listen(SID, new CmAgent.Listener() {
            @Override
            public void onRequest(CmId id) {
            }

            @Override
            public int sidrQpn() {
                return 0x4242;
            }

            @Override
            public int sidrQkey() {
                return 0x11111111;
            }
        });
        a.sidr(SID, PEER_B, client, null, now);
        a.sidr(SID + 1, PEER_B, client, null, now);
        deliver();
        assertEquals(List.of("sidr 0 4242 11111111", "sidr 1 0 0"), client.events);
    }

    @Test
    void aLapIsRefusedAndAMadOfAnotherClassIsDropped() {
        UnsafeBuffer m = new UnsafeBuffer(new byte[Mad.SIZE]);
        Mad.start(m, 0, Mad.CLASS_CM, Mad.CM_CLASS_VERSION, Mad.METHOD_SEND, 77, CmAttribute.LAP);
        assertTrue(b.onMad(m, 0, Mad.SIZE, PEER_A, now));
        assertEquals(List.of(CmAttribute.REJ), sent);
        Wire w = inFlight.poll();
        assertNotNull(w);
        CmRej r = new CmRej();
        r.wrap(new UnsafeBuffer(w.mad()), 0);
        assertEquals(CmRej.UNSUPPORTED, r.reason());
        assertEquals(77, r.transactionId());
        Mad.start(m, 0, 0x04, 1, Mad.METHOD_GET, 78, 0x0010); // a PerfMgt Get
        assertEquals(false, b.onMad(m, 0, Mad.SIZE, PEER_A, now));
        assertEquals(1, b.stats().dropped);
        assertNull(inFlight.poll());
    }

    /** One more active connection from a, with its own QP and events. */
    record Client(CmId id, FakeQp qp, Recorder events) {
    }

    Client another(int qpn) {
        FakeQp qp = new FakeQp(qpn);
        Recorder r = new Recorder();
        CmId id = a.connect(a.newId().qpParameters(qpn, 5, 1, 1), SID, PEER_B, GID_B, qp, r, null, now);
        return new Client(id, qp, r);
    }

    /** The REJs b put on the wire, decoded from the bytes sent. */
    List<CmRej> rejectsFromB() {
        List<CmRej> out = new ArrayList<>();
        for (Wire w : onWire) {
            if (w.from() != PEER_B || w.attribute() != CmAttribute.REJ) continue;
            CmRej r = new CmRej();
            r.wrap(new UnsafeBuffer(w.mad()), 0);
            out.add(r);
        }
        return out;
    }

    @Test
    void reqsBeyondTheOneBeingServedWaitInTheBacklogAndAreAcceptedInArrivalOrder() {
        b.listen(SID, server, 3);
        List<Client> clients = List.of(another(0x301), another(0x302), another(0x303));
        deliver();
        assertEquals(3, b.waiting(SID));
        for (int i = 0; i < clients.size(); i++) {
            CmId r = server.requests.get(i);
            assertEquals(0x301 + i, r.remoteQpn(), "request " + i + " in arrival order");
            assertTrue(b.take(r));
            assertEquals(2 - i, b.waiting(SID));
            b.accept(r.qpParameters(0x10 + i, 5, 1, 1), new FakeQp(0x401 + i), server, null, now);
            deliver();
            assertEquals(List.of("established"), clients.get(i).events().events);
        }
        assertTrue(rejectsFromB().isEmpty());
    }

    @Test
    void aReqWaitingInTheBacklogIsMraedAndItsActiveSideKeepsWaitingUntilItIsTaken() {
        b.listen(SID, server, 2);
        Client c = another(0x301);
        deliver();
        // the application is busy for several MRA periods: the active side resends its REQ, each answered by the MRA
        long mraPeriod = CmConfig.nanos(CONFIG.serviceTimeout()) + CmConfig.nanos(CONFIG.responseTimeout());
        advance(3 * mraPeriod);
        assertTrue(b.stats().mrasSent >= 2, "MRAs sent: " + b.stats().mrasSent);
        assertEquals(b.stats().mrasSent, a.stats().mrasReceived);
        assertEquals(List.of(), c.events().events);
        assertEquals(1, b.waiting(SID));
        CmId r = server.requests.get(0);
        assertTrue(b.take(r));
        b.accept(r.qpParameters(0x10, 5, 1, 1), qpB, server, null, now);
        deliver();
        assertEquals(List.of("established"), c.events().events);
        assertTrue(rejectsFromB().isEmpty());
    }

    @Test
    void aReqPastTheBacklogIsRejectedAtOnceWithNoResourcesOnTheWire() {
        b.listen(SID, server, 1);
        another(0x301);
        Client late = another(0x302);
        long t0 = now;
        deliver();
        assertEquals(t0, now); // no time passed: refused, not left to time out
        assertEquals(List.of("rejected"), late.events().events);
        assertEquals(CmRej.NO_RESOURCES, late.events().reason);
        List<CmRej> rej = rejectsFromB();
        assertEquals(1, rej.size());
        assertEquals(CmRej.NO_RESOURCES, rej.get(0).reason());
        assertEquals(CmRej.REJECTED_REQ, rej.get(0).messageRejected());
        assertEquals(late.id().localCommId(), rej.get(0).remoteCommId());
        assertEquals(1, b.waiting(SID));
        assertEquals(1, server.requests.size());
        assertEquals(1, b.stats().backlogFull);
    }

    @Test
    void closingTheListenerRejectsTheWaitingReqsAtOnceAsConsumerDefined() {
        b.listen(SID, server, 4);
        Client first = another(0x301);
        Client second = another(0x302);
        deliver();
        advance(CmConfig.nanos(CONFIG.responseTimeout())); // both MRAed by now
        b.unlisten(SID, now);
        deliver();
        for (Client c : List.of(first, second)) {
            assertEquals(List.of("rejected"), c.events().events);
            assertEquals(CmRej.CONSUMER_DEFINED, c.events().reason);
            assertEquals(List.of("ERR"), c.qp().states);
        }
        List<CmRej> rej = rejectsFromB();
        assertEquals(2, rej.size());
        assertEquals(List.of(first.id().localCommId(), second.id().localCommId()), rej.stream().map(CmRej::remoteCommId).toList());
        for (CmRej r : rej) {
            assertEquals(CmRej.CONSUMER_DEFINED, r.reason());
            assertEquals(CmRej.REJECTED_REQ, r.messageRejected());
        }
        assertEquals(0, b.connections());
        assertEquals(0, a.connections());
        assertTrue(!b.take(server.requests.get(0))); // gone: the application cannot take it any more
    }

    @Test
    void anMraedReqWhoseActiveSideGaveUpLeavesTheBacklogWithoutATimeoutReject() {
        b.listen(SID, server, 2);
        another(0x301);
        deliver();
        lose = w -> true; // the active side vanishes: no more duplicates come
        long end = now + 4 * (CmConfig.nanos(CONFIG.serviceTimeout()) + CmConfig.nanos(CONFIG.responseTimeout()));
        while (now < end) {
            now = Math.min(end, b.nextDeadline());
            b.poll(now);
        }
        assertEquals(0, b.waiting(SID));
        assertEquals(0, b.connections());
        assertEquals(1, b.stats().abandoned);
        assertTrue(rejectsFromB().isEmpty(), "a REJ (timeout) is one the kernel's CM ignores: none is sent");
    }
}
