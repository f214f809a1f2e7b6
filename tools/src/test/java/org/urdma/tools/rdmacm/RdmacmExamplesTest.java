package org.urdma.tools.rdmacm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.Urdma;

/** rdma_server/rdma_client and udaddy between two urdma devices on the memory link; SIDR for a port nobody serves. */
class RdmacmExamplesTest {
    private static final Duration T = Duration.ofSeconds(10);

    @Test
    void rdmaClientAndServerSwapSixteenBytes() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            pair.first().rdmaCm();
            PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> new RdmaExample(pair.first(), T, quiet).server(7471),
                    r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            assertArrayEquals(RdmaExample.MESSAGE, new RdmaExample(pair.second(), T, quiet).client("10.0.0.1", 7471));
            assertArrayEquals(RdmaExample.MESSAGE, served.get());
        }
    }

    @Test
    void udaddyResolvesTheServersUdQpThroughSidrAndTenMessagesGoEachWay() throws Exception {
        ByteArrayOutputStream so = new ByteArrayOutputStream();
        ByteArrayOutputStream co = new ByteArrayOutputStream();
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             Udaddy s = new Udaddy(pair.first(), 10, 100, T, new PrintStream(so, true, StandardCharsets.US_ASCII));
             Udaddy c = new Udaddy(pair.second(), 10, 100, T, new PrintStream(co, true, StandardCharsets.US_ASCII))) {
            pair.first().rdmaCm();
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> s.server(7174), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            assertEquals(10, c.client("10.0.0.1", 7174));
            assertEquals(10, (int) served.get());
        }
        assertTrue(co.toString(StandardCharsets.US_ASCII).contains("Q_Key 0x01234567"), co.toString(StandardCharsets.US_ASCII));
        assertTrue(so.toString(StandardCharsets.US_ASCII).startsWith("udaddy: listening on port 7174\nudaddy: received 10 messages of 100 bytes"), so.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void sidrForAPortNobodyServesSaysSo() {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            pair.first().rdmaCm();
            RdmaConnectException e = assertThrows(RdmaConnectException.class, () -> pair.second().rdmaCm().sidrResolve("10.0.0.1", 7999, T));
            assertTrue(e.getMessage().contains("status 1 (nobody serves the port)"), e.getMessage());
        }
    }
}
