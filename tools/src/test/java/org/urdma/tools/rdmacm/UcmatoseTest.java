package org.urdma.tools.rdmacm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.urdma.cli.CliRun;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.Urdma;

/** urdma ucmatose, server and client on the memory link: cmatose's exchange order, its refusal past -c. */
class UcmatoseTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final java.util.concurrent.Executor THREADS = r -> Thread.ofPlatform().daemon().start(r);

    private static List<String> lines(ByteArrayOutputStream b) {
        return List.of(b.toString(StandardCharsets.US_ASCII).split("\n"));
    }

    @Test
    void fourConnectionsCarryTenMessagesEachWayInCmatosesOrder() throws Exception {
        ByteArrayOutputStream so = new ByteArrayOutputStream();
        ByteArrayOutputStream co = new ByteArrayOutputStream();
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            pair.first().rdmaCm();
            CompletableFuture<Void> served = CompletableFuture.runAsync(() ->
                    new Ucmatose(pair.first(), 4, 10, 100, T, new PrintStream(so, true, StandardCharsets.US_ASCII)).server(7471), THREADS);
            Thread.sleep(200);
            new Ucmatose(pair.second(), 4, 10, 100, T, new PrintStream(co, true, StandardCharsets.US_ASCII)).client("10.0.0.1", 7471);
            served.get();
            assertTrue(pair.first().rdmaCm().stats().contains("established 4,"), pair.first().rdmaCm().stats());
        }
        assertEquals(List.of("cmatose: starting server", "initiating data transfers", "completing sends", "receiving data transfers",
                "data transfers complete", "cmatose: disconnecting", "disconnected", "test complete", "return status 0"), lines(so));
        assertEquals(List.of("cmatose: starting client", "cmatose: connecting", "receiving data transfers", "sending replies",
                "data transfers complete", "test complete", "return status 0"), lines(co));
    }

    @Test
    void aConnectionPastTheServersCountIsRefusedAsConsumerDefined() throws Exception {
        ByteArrayOutputStream so = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            pair.first().rdmaCm();
            CompletableFuture<Void> served = CompletableFuture.runAsync(() ->
                    new Ucmatose(pair.first(), 1, 0, 100, T, new PrintStream(so, true, StandardCharsets.US_ASCII)).server(7472), THREADS);
            Thread.sleep(200);
            RdmaConnectException e = assertThrows(RdmaConnectException.class,
                    () -> new Ucmatose(pair.second(), 2, 0, 100, T, quiet).client("10.0.0.1", 7472));
            assertTrue(e.getMessage().contains("REJ reason 28"), e.getMessage());
            served.get();
        }
        assertTrue(lines(so).contains("cmatose: failing connection request"), so.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void theCommandRunsBothRolesInMemoryAndAnswersHelp() {
        CliRun r = CliRun.run("ucmatose", "-c", "2", "-C", "5", "-S", "64");
        assertEquals(0, r.exit(), r.err());
        assertEquals(2, r.out().split("return status 0", -1).length - 1, r.out());
        CliRun h = CliRun.run("ucmatose", "--help");
        assertEquals(0, h.exit(), h.err());
        assertTrue(h.out().contains("Usage: urdma ucmatose"), h.out());
    }
}
