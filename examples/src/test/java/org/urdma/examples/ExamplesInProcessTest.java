package org.urdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.Urdma;

/** Every example, server and client in this JVM on a memory pair (what {@code main} does without a role). */
class ExamplesInProcessTest {
    private static final String[] NO_ARGS = {};

    private static String[] run(ExampleMain.Server server, ExampleMain.Client client, String... args) throws Exception {
        ExampleArgs a = ExampleArgs.parse(args, 32);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(a.device()); RdmaServer l = pair.first().listen(0)) {
            CompletableFuture<String> s = CompletableFuture.supplyAsync(() -> server.serve(l, a), ExampleMain.THREADS);
            String c = client.run(pair.second(), "127.0.0.1", l.port(), a);
            return new String[] {s.get(), c};
        }
    }

    @Test
    void sendRecvDeliversAndChecksEveryMessage() throws Exception {
        String[] r = run(SendRecv::server, SendRecv::client, "--count", "300"); // > the 128 receives: reposting is exercised
        assertEquals("received and checked 300 messages of 64 bytes", r[0]);
        assertEquals("sent 300 messages; server confirmed 300", r[1]);
    }

    @Test
    void writeWithImmediatePlacesEveryChunkAndNamesItInTheCompletion() throws Exception {
        String[] r = run(WriteImm::server, WriteImm::client, "--count", "20");
        assertEquals("received 20 writes with immediate, 81920 bytes checked", r[0]);
    }

    @Test
    void rdmaReadReturnsTheServersBytes() throws Exception {
        String[] r = run(RdmaRead::server, RdmaRead::client, "--count", "12");
        assertEquals("read and checked 49152 bytes", r[1]);
        assertEquals("served 49152 bytes to RDMA READ", r[0]);
    }

    @Test
    void atomicCounterSharedByThreeClientsCountsEveryAddOnce() throws Exception {
        ExampleArgs a = ExampleArgs.parse(new String[] {"--clients", "3", "--count", "50"}, 0);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(a.device()); RdmaServer l = pair.first().listen(0)) {
            CompletableFuture<String> s = CompletableFuture.supplyAsync(() -> AtomicCounter.server(l, a), ExampleMain.THREADS);
            List<CompletableFuture<long[]>> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                clients.add(CompletableFuture.supplyAsync(() -> AtomicCounter.fetchAdds(pair.second(), "127.0.0.1", l.port(), 50), ExampleMain.THREADS));
            }
            long[] all = clients.stream().flatMapToLong(f -> Arrays.stream(f.join())).sorted().toArray();
            assertTrue(Arrays.equals(LongStream.range(0, 150).toArray(), all), "fetched values: " + Arrays.toString(all));
            assertEquals("counter is 150 after 3 clients × 50 fetch-and-adds", s.get());
        }
    }

    @Test
    void eventServerHandlesEveryMessageFromCompletionEvents() throws Exception {
        String[] r = run(EventServer::server, SendRecv::client, "--count", "200");
        assertTrue(r[0].startsWith("received and checked 200 messages in "), r[0]);
        assertEquals("sent 200 messages; server confirmed 200", r[1]);
    }

    @Test
    void argumentsAreCheckedNamingTheOption() {
        assertEquals("--count: must be 1..1048576, was 0", org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ExampleArgs.parse(new String[] {"--count", "0"}, 1)).getMessage());
        assertEquals("--link: server needs afpacket:IF or tap:IF (memory works only in one JVM)",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> ExampleArgs.parse(new String[] {"server"}, 1)).getMessage());
    }
}
