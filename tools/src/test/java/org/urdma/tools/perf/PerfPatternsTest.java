package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PerfPatternsTest {
    @Test
    void messagesOverEightKibAreEachSignaledAsPerftestDoes() {
        assertEquals(1, PerfPatterns.moderation(512, 65536), "a -D run of 64 KiB messages counts every completion");
        assertEquals(1, PerfPatterns.moderation(128, 8193));
        assertEquals(100, PerfPatterns.moderation(512, 8192), "up to 8 KiB, every 100th");
        assertEquals(16, PerfPatterns.moderation(16, 4096), "never less often than the depth");
    }
}
