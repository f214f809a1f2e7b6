package org.urdma.tools.rdmacm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.urdma.cli.CliRun;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;

/** urdma cmtime, server and client on the memory link: a hundred connections at once, cmtime's step table. */
class CmtimeTest {
    private static final Duration T = Duration.ofSeconds(20);

    @Test
    void aHundredConnectionsAreMadeAndTornDownAtOnceAndEachStepIsTimed() throws Exception {
        ByteArrayOutputStream so = new ByteArrayOutputStream();
        ByteArrayOutputStream co = new ByteArrayOutputStream();
        int failed;
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            pair.first().rdmaCm();
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() ->
                    new Cmtime(pair.first(), 100, T, new PrintStream(so, true, StandardCharsets.US_ASCII)).server(7471),
                    r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(200);
            failed = new Cmtime(pair.second(), 100, T, new PrintStream(co, true, StandardCharsets.US_ASCII)).client("10.0.0.1", 7471);
            assertEquals(0, (int) served.get());
        }
        assertEquals(0, failed);
        List<String> lines = List.of(co.toString(StandardCharsets.US_ASCII).split("\n"));
        int header = lines.indexOf("step              total ms     max ms     min us  us / conn");
        assertTrue(header >= 0, co.toString(StandardCharsets.US_ASCII));
        List<String> steps = lines.subList(header + 1, lines.size()).stream().map(l -> l.substring(0, 13).trim()).toList();
        assertEquals(List.of("create id", "resolve addr", "resolve route", "create qp", "connect", "disconnect", "destroy"), steps);
        String connect = lines.get(header + 1 + steps.indexOf("connect"));
        double[] cols = Arrays.stream(connect.substring(14).trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
        assertTrue(cols[0] > 0 && cols[1] > 0 && cols[1] <= cols[0] && cols[2] > 0, connect); // total, max ms, min us
        assertTrue(so.toString(StandardCharsets.US_ASCII).contains("100 connections accepted, 100 disconnected, 0 failed"),
                so.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void theCommandRunsBothRolesInMemory() {
        CliRun r = CliRun.run("cmtime", "-c", "10");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("10 connections accepted, 10 disconnected, 0 failed"), r.out());
    }
}
