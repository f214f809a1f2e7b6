package org.urdma.transport.port;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArpResolverTest {
    static final long MS = 1_000_000L;
    final ArpResolver.Config cfg = new ArpResolver.Config(100 * MS, 3, 1000 * MS, 500 * MS);
    final List<Integer> sent = new ArrayList<>();
    final ArpResolver.RequestSender sender = ip -> sent.add(ip);

    @Test
    void aLookupStartsARequestAndAnAnswerResolvesIt() {
        ArpResolver r = new ArpResolver(16, cfg);
        int ip = PortIdentity.parseIpv4("10.0.0.2");
        assertEquals(ArpResolver.PENDING, r.resolve(ip, 0));
        assertEquals(1, r.poll(0, sender));
        assertEquals(List.of(ip), sent);
        assertEquals(0, r.poll(50 * MS, sender), "no retry before the interval");
        r.learn(ip, 0x020000000002L, 60 * MS);
        assertEquals(0x020000000002L, r.resolve(ip, 70 * MS));
        assertEquals(0, r.poll(500 * MS, sender), "a reachable entry sends nothing");
    }

    @Test
    void retriesAtTheIntervalThenFailsAndHoldsTheFailure() {
        ArpResolver r = new ArpResolver(16, cfg);
        int ip = PortIdentity.parseIpv4("10.0.0.9");
        r.resolve(ip, 0);
        for (long t = 0; t <= 400 * MS; t += 10 * MS) r.poll(t, sender);
        assertEquals(3, sent.size(), "maxRequests requests, 100 ms apart");
        assertEquals(ArpResolver.FAILED, r.resolve(ip, 400 * MS));
        assertEquals(1, r.failures());
        assertEquals(ArpResolver.FAILED, r.resolve(ip, 700 * MS), "failed at 300 ms, held down for 500 ms");
        assertEquals(ArpResolver.PENDING, r.resolve(ip, 950 * MS), "then tried again");
        assertEquals(1, r.poll(950 * MS, sender));
    }

    @Test
    void anExpiredAnswerIsStillUsedWhileItIsReconfirmed() {
        ArpResolver r = new ArpResolver(16, cfg);
        int ip = 0x0A000002;
        r.learn(ip, 0xAAL, 0);
        assertEquals(0xAAL, r.resolve(ip, 1500 * MS));
        assertEquals(1, r.poll(1500 * MS, sender));
        r.learn(ip, 0xBBL, 1510 * MS);
        assertEquals(0xBBL, r.resolve(ip, 1520 * MS));
    }

    @Test
    void aSenderThatCannotSendNowIsRetriedOnTheNextPoll() {
        ArpResolver r = new ArpResolver(16, cfg);
        r.resolve(7, 0);
        assertEquals(0, r.poll(0, ip -> false));
        assertEquals(1, r.poll(1, sender));
    }

    @Test
    void aFullTableEvictsTheLeastRecentlyUsedAndKeepsTheRestFindable() {
        ArpResolver r = new ArpResolver(4, cfg);
        for (int i = 1; i <= 4; i++) r.learn(i, 100 + i, i);
        r.resolve(1, 10); // touch 1: entry 2 is now the oldest
        r.learn(5, 105, 11);
        assertEquals(101, r.resolve(1, 12));
        assertEquals(103, r.resolve(3, 12));
        assertEquals(104, r.resolve(4, 12));
        assertEquals(105, r.resolve(5, 12));
        assertEquals(ArpResolver.PENDING, r.resolve(2, 13), "2 was evicted");
    }

    @Test
    void badConfigurationNamesTheField() {
        var e = assertThrows(IllegalArgumentException.class, () -> new ArpResolver.Config(0, 3, 1, 1));
        assertTrue(e.getMessage().startsWith("retryNanos"));
        assertThrows(IllegalArgumentException.class, () -> new ArpResolver(0, cfg));
    }
}
