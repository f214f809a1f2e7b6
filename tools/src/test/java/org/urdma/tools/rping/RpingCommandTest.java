package org.urdma.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.cli.CliRun;

/** {@code urdma rping} as a user types it: its help, and the in-memory run that ends by itself. */
class RpingCommandTest {
    @Test
    void helpAfterTheCommandPrintsItsUsage() {
        for (String flag : new String[] {"--help", "-h"}) {
            CliRun r = CliRun.run("rping", flag);
            assertEquals(0, r.exit(), flag + ": " + r.err());
            assertTrue(r.out().contains("Usage: urdma rping"), r.out());
        }
    }

    @Test
    void anInMemoryRunWithoutACountStopsAfterItsDefaultAndSaysSo() {
        CliRun r = CliRun.run("rping");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("rping: " + RpingCommand.MEMORY_PINGS + " pings in memory"), r.out());
        assertTrue(r.out().contains("rping: " + RpingCommand.MEMORY_PINGS + " pings of 64 bytes"), r.out());
    }
}
