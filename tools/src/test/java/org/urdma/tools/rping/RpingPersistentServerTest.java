package org.urdma.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.Urdma;

/** urdma rping -s -P on the memory link: one client after another on one listener, each with its own connection. */
@Tag("slow")
class RpingPersistentServerTest {
    private static final int CLIENTS = 300;

    @Test
    void aPersistentServerServesThreeHundredClientsInARow() throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        Duration t = Duration.ofSeconds(5);
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            PrintStream so = new PrintStream(serverOut, true, StandardCharsets.US_ASCII);
            pair.first().rdmaCm();
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() ->
                    new Rping(pair.first(), 64, 0, false, true, t, so).server(7174, true), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            for (int i = 0; i < CLIENTS; i++) {
                try {
                    assertEquals(1, new Rping(pair.second(), 64, 1, false, true, t, quiet).client("10.0.0.1", 7174), "client " + i);
                } catch (RuntimeException e) {
                    Thread.sleep(500);
                    String server = served.isCompletedExceptionally() ? "failed: " + served.exceptionNow() : serverOut.toString();
                    throw new AssertionError("client " + i + ": " + e.getMessage() + "; server " + server, e);
                }
            }
            assertEquals(CLIENTS, (int) served.get());
        }
        assertTrue(serverOut.toString(StandardCharsets.US_ASCII).startsWith("rping server: " + CLIENTS + " clients served, " + CLIENTS + " pings, 0 connections failed"),
                serverOut.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void aPersistentServerServesAClientWhileAnotherIsStillConnected() throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        Duration t = Duration.ofSeconds(2);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            PrintStream so = new PrintStream(serverOut, true, StandardCharsets.US_ASCII);
            pair.first().rdmaCm();
            CompletableFuture<Rping.Served> served = CompletableFuture.supplyAsync(() ->
                    new Rping(pair.first(), 64, 0, false, true, t, so).persistentServer(7175), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            // the first client connects and says nothing; a server that serves one client at a time would keep the
            // second one's REQ waiting until the first leaves, and its connect would time out
            try (RdmaConnection idle = pair.second().rdmaCm().connect("10.0.0.1", 7175, EndpointOptions.defaults().withTimeout(t))) {
                assertEquals(5, new Rping(pair.second(), 64, 5, false, true, t, quiet).client("10.0.0.1", 7175));
            }
            Rping.Served s = served.get();
            assertEquals(new Rping.Served(2, 5, 0), s, serverOut.toString(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aClientThatFailsIsCountedAndThePersistentServerGoesOn() throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        Duration t = Duration.ofSeconds(1);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            PrintStream so = new PrintStream(serverOut, true, StandardCharsets.US_ASCII);
            pair.first().rdmaCm();
            CompletableFuture<Rping.Served> served = CompletableFuture.supplyAsync(() ->
                    new Rping(pair.first(), 64, 0, false, true, t, so).persistentServer(7176), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            // silent for longer than the server waits for a ping: that connection fails, the next client is served
            try (RdmaConnection silent = pair.second().rdmaCm().connect("10.0.0.1", 7176, EndpointOptions.defaults().withTimeout(t))) {
                Thread.sleep(t.toMillis() + 500);
            }
            assertEquals(3, new Rping(pair.second(), 64, 3, false, true, t, quiet).client("10.0.0.1", 7176));
            assertEquals(new Rping.Served(1, 3, 1), served.get(), serverOut.toString(StandardCharsets.US_ASCII));
        }
        assertTrue(serverOut.toString(StandardCharsets.US_ASCII).contains("1 clients served, 3 pings, 1 connections failed"),
                serverOut.toString(StandardCharsets.US_ASCII));
    }
}
