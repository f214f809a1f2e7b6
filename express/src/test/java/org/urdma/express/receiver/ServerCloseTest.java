package org.urdma.express.receiver;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.ServeOptions;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;

class ServerCloseTest {
    @TempDir
    Path tmp;

    @Test
    void closeWakesTheAcceptorInsteadOfWaitingOutItsWaitForAClient() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            Server s = new Server(pair.first(), 0, ServeOptions.under(tmp), w -> { });
            Thread.sleep(50); // the acceptor is waiting for a client by now
            long t0 = System.nanoTime();
            s.close();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // the acceptor waits an hour for a client: had close not woken it, close would have given up on it after 5 s
            // and it would still run (no ceiling on ms: a loaded machine may be slow to wake it)
            assertFalse(s.accepting(), "the acceptor still runs after close, which took " + ms + " ms");
        }
    }
}
