package org.urdma.tools.rdmacm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.urdma.cli.CliRun;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;

/** mckey between urdma devices on the memory link: every joined receiver gets every message; bad options by name. */
class MckeyTest {
    private static final Duration T = Duration.ofSeconds(10);

    @Test
    void twoReceiverNodesEachGetEveryMessageOfTheSender() throws Exception {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             Mckey r1 = new Mckey(pair.first(), 10, 100, quiet);
             Mckey r2 = new Mckey(pair.first(), 10, 100, quiet);
             Mckey s = new Mckey(pair.second(), 10, 100, quiet)) {
            r1.join("239.1.2.3", false);
            r2.join("239.1.2.3", false);
            CompletableFuture<Integer> got = CompletableFuture.supplyAsync(() -> r1.receive(T) + r2.receive(T),
                    r -> Thread.ofPlatform().daemon().start(r));
            s.join("239.1.2.3", true);
            s.send(T);
            assertEquals(20, (int) got.get());
        }
    }

    @Test
    void theCommandRunsBothRolesInMemory() {
        CliRun r = CliRun.run("mckey", "-m", "239.0.0.9", "-c", "2", "-C", "5", "-S", "64");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("mckey: 2 receivers got 10 messages of 64 bytes"), r.out());
        assertTrue(r.out().contains("mckey: joined dgid: "), r.out());
    }

    @Test
    void badOptionsAreRefusedByName() {
        CliRun unicast = CliRun.run("mckey", "-m", "10.0.0.1");
        assertTrue(unicast.exit() != 0, "exit " + unicast.exit());
        assertTrue(unicast.err().contains("-m: 10.0.0.1 is no multicast address"), unicast.err());
        CliRun ps = CliRun.run("mckey", "-m", "239.0.0.9", "-p", "0x99");
        assertTrue(ps.exit() != 0 && ps.err().contains("-p: "), ps.err());
        assertThrows(IllegalArgumentException.class, () -> {
            try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
                new Mckey(pair.first(), 1, 100_000, System.out).close();
            }
        });
    }
}
