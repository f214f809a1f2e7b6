package org.urdma.transport.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wait for the kernel to count a link up, on a virtual clock: how often it looks, when it takes RTNL, when it gives up. */
class LinkUpTest {
    private long clock;
    private final List<String> steps = new ArrayList<>();

    private void await(int pollsUntilRunning, long waitMs) {
        int[] polls = {0};
        LinkUp.await("tapx", () -> {
            steps.add("poll@" + clock / 1_000_000);
            return ++polls[0] > pollsUntilRunning;
        }, () -> steps.add("rtnl@" + clock / 1_000_000), () -> clock, ms -> clock += ms * 1_000_000, waitMs);
    }

    @Test
    void theRtnlCallComesOnlyAfterTheLinkIsSeenRunning() {
        await(3, 1_000);
        assertEquals(List.of("poll@0", "poll@5", "poll@10", "poll@15", "rtnl@15"), steps);
    }

    @Test
    void aLinkAlreadyRunningCostsOneLookAndOneRtnlCall() {
        await(0, 1_000);
        assertEquals(List.of("poll@0", "rtnl@0"), steps);
    }

    @Test
    void aLinkTheKernelNeverCountsUpIsRefusedNamingTheInterfaceWithoutTheRtnlCall() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> await(Integer.MAX_VALUE, 100));
        assertTrue(e.getMessage().startsWith("interface tapx "), e.getMessage());
        assertTrue(e.getMessage().contains("100 ms"), e.getMessage());
        assertTrue(steps.stream().noneMatch(s -> s.startsWith("rtnl")), steps.toString());
        assertEquals(100, clock / 1_000_000);
    }
}
