package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class WindowLimitTest {
    @Test
    void aSaturatedQpSendsLengthThrPerWindowOverThousandsOfWindows() {
        RateControl w = RateControl.windowLimit(4096, 8192).create();
        long now = 1_000_000;
        long start = now;
        long sent = 0;
        int packet = 1500; // does not divide length_thr: every window overshoots, and owes it to the next
        long end = start + 2000 * 8192L;
        while (now < end) {
            long at = w.nextSendTime(now);
            if (at > now) {
                now = at;
                continue;
            }
            w.onSent(packet, now);
            sent += packet;
        }
        double expected = 4096.0 * 2000;
        assertEquals(1.0, sent / expected, 0.001, "sent " + sent + " in 2000 windows");
    }

    @Test
    void aWindowNeverCarriesMoreThanItsBudgetPlusOnePacket() {
        RateControl w = RateControl.windowLimit(4000, 4096).create();
        long now = 0;
        long[] perWindow = new long[100];
        while (now < 100 * 4096L) {
            long at = w.nextSendTime(now);
            if (at > now) {
                now = at;
                continue;
            }
            w.onSent(1024, now);
            perWindow[(int) (now / 4096)] += 1024;
        }
        for (long b : perWindow) assertTrue(b <= 4000 + 1024, "window carried " + b);
    }

    @Test
    void anIdleQpDoesNotSaveUpBudget() {
        RateControl w = RateControl.windowLimit(4096, 8192).create();
        w.onSent(4096, 0);
        assertTrue(w.nextSendTime(100) >= 8192, "the first window is spent");
        // ten windows idle, then a burst: only one window's worth goes at once
        long now = 10 * 8192L + 5;
        int burst = 0;
        while (w.nextSendTime(now) <= now) {
            w.onSent(1024, now);
            burst++;
        }
        assertEquals(4, burst);
    }

    @Test
    void badParametersAreRefusedByName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.windowLimit(0, 8192))
                .getMessage().startsWith("length_thr"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.windowLimit(4096, 100_000))
                .getMessage().startsWith("CC_WINDOW"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("bbr"))
                .getMessage().startsWith("cc: unknown"));
        assertEquals("window:4096/8192", RateControl.named("window:4096/8192").name());
        assertEquals("none", RateControl.named("none").name());
    }
}
