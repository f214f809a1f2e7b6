package org.urdma.transport.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.urdma.transport.gsi.CmConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.verbs.QpState;

/**
 * The CM's retries end to end, through the memory link's impairment: one REQ, REP or RTU lost on the wire (the n-th
 * frame one side sends, chosen before it leaves) and the connection is still made, once. A lost REP makes the client
 * send its REQ again; the server answers that duplicate with its REP, and its application sees one request only.
 */
class RdmaCmLossTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final int PORT = 7480;

    /** Drops the {@code nth} frame {@code d}'s link sends (1 = its first): the tap runs just before the impairment. */
    private static AtomicInteger dropNth(UrdmaDevice d, int nth) {
        MemoryLink link = (MemoryLink) d.soft().link();
        AtomicInteger sent = new AtomicInteger();
        ImpairmentConfig all = ImpairmentConfig.none().lossRandom(1, 0);
        link.tap((frame, offset, length, now) -> link.impairment(sent.incrementAndGet() == nth ? all : ImpairmentConfig.none()));
        return sent;
    }

    private record Outcome(RdmaCm server, RdmaCm client, RdmaConnection c, RdmaConnection s, RdmaCmListener l) {
    }

    private static void connectThrough(Urdma.MemoryPair pair, java.util.function.Consumer<Outcome> check) throws Exception {
        RdmaCm server = pair.first().rdmaCm();
        RdmaCm client = pair.second().rdmaCm();
        try (RdmaCmListener l = server.listen(PORT)) {
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> l.accept(EndpointOptions.defaults()),
                    r -> Thread.ofPlatform().daemon().start(r));
            try (RdmaConnection c = client.connect(server.address(), PORT, EndpointOptions.defaults());
                 RdmaConnection s = accepted.get()) {
                long deadline = System.nanoTime() + T.toNanos();
                while (s.qp().state() != QpState.RTS && System.nanoTime() < deadline) Thread.onSpinWait();
                assertEquals(QpState.RTS, c.qp().state());
                assertEquals(QpState.RTS, s.qp().state());
                assertEquals(s.qp().qpNum(), c.peerQpn());
                check.accept(new Outcome(server, client, c, s, l));
            }
        }
    }

    @Test
    void aLostReqIsSentAgainAfterTheResponseTimeout() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            dropNth(pair.second(), 1);
            connectThrough(pair, o -> {
                // at least once: a REP slower than the 268 ms response timeout on a loaded machine brings one more
                assertTrue(o.client().cmStats().retries >= 1, o.client().stats());
                assertEquals(1, o.server().cmStats().requests, o.server().stats());
                assertEquals(1, o.server().cmStats().established, o.server().stats());
            });
        }
    }

    @Test
    void aLostRepBringsTheReqAgainWhichIsAnsweredNotMadeASecondConnection() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            dropNth(pair.first(), 1);
            // the server waits rdma_cm's 4.3 s before it sends the REP again itself, so the client's REQ (268 ms) comes first
            pair.first().rdmaCm(new CmConfig(20, 15, 20));
            connectThrough(pair, o -> {
                assertTrue(o.client().cmStats().retries >= 1, o.client().stats()); // its REQ again
                assertTrue(o.server().cmStats().duplicates >= 1, o.server().stats()); // answered with the same REP
                assertEquals(1, o.server().cmStats().requests, o.server().stats());
                assertEquals(1, o.server().cmStats().established, o.server().stats());
                assertThrows(RdmaConnectException.class, () -> o.l().nextRequest(Duration.ofMillis(300)));
            });
        }
    }

    @Test
    void aLostRtuIsRecoveredByTheRepSentAgain() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            dropNth(pair.second(), 2); // REQ, then the RTU
            connectThrough(pair, o -> {
                assertTrue(o.server().cmStats().retries >= 1, o.server().stats()); // the REP again
                assertTrue(o.client().cmStats().duplicates >= 1, o.client().stats()); // answered with the RTU again
                assertEquals(1, o.server().cmStats().established, o.server().stats());
                assertEquals(1, o.client().cmStats().established, o.client().stats());
            });
        }
    }
}
