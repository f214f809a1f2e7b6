package org.urdma.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;

/** urdma rping client and server over rdma_cm on the memory link: rping's exchange, its -v lines, -V validation. */
class RpingTest {
    @Test
    void fiftyValidatedPingsPrintWhatStockRpingPrints() throws Exception {
        ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        Duration t = Duration.ofSeconds(20);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            PrintStream so = new PrintStream(serverOut, true, StandardCharsets.US_ASCII);
            pair.first().rdmaCm(); // listening before the client connects: started below, waited for by a REJ-free connect
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() ->
                    new Rping(pair.first(), 64, 0, true, true, t, so).server(7174), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            int n = new Rping(pair.second(), 64, 50, true, true, t, new PrintStream(clientOut, true, StandardCharsets.US_ASCII))
                    .client("10.0.0.1", 7174);
            assertEquals(50, n);
            assertEquals(50, (int) served.get());
        }
        String[] lines = clientOut.toString(StandardCharsets.US_ASCII).split("\n");
        assertEquals(50, lines.length);
        // rping.c: "rdma-ping-%d: " then letters from 'A' + ping (wrapping after 'z'), 63 characters and a NUL
        assertEquals("ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr", lines[0]);
        assertEquals("ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs", lines[1]);
        assertTrue(serverOut.toString(StandardCharsets.US_ASCII).startsWith("server ping data: rdma-ping-0: ABCDEFG"));
    }

    @Test
    void theServerPostsItsNextReceiveBeforeReplyingSoTheClientMeetsNoRnrNak() throws Exception {
        Duration t = Duration.ofSeconds(20);
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            pair.first().rdmaCm();
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() ->
                    new Rping(pair.first(), 64, 0, false, true, t, quiet).server(7177), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            assertEquals(500, new Rping(pair.second(), 64, 500, false, true, t, quiet).client("10.0.0.1", 7177));
            assertEquals(500, (int) served.get());
            // the first receive is posted before the REP, each next one before the SEND that lets the client go on
            long rnr = ((org.urdma.transport.engine.SoftDevice) pair.first().verbs()).counters().get(org.urdma.transport.counters.Counter.RNR_NAKS_SENT);
            assertEquals(0, rnr, "RNR NAKs the server sent");
        }
    }
}
