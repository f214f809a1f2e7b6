package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CongestionWindowTest {
    @Test
    void noWindowLeavesThePsnWindowAndTheRecoveryCadenceAlone() {
        CongestionWindow w = new CongestionWindow();
        assertEquals(1024, w.narrow(1024, Long.MAX_VALUE, 4096));
        assertEquals(0, w.ackReqInterval(0));
        assertEquals(64, w.ackReqInterval(64));
    }

    @Test
    void aNarrowerWindowIsWholePacketsAndAsksForAnAckEveryHalfWindow() {
        CongestionWindow w = new CongestionWindow();
        assertEquals(10, w.narrow(1024, 9 * 4096 + 1, 4096));
        assertEquals(5, w.ackReqInterval(0));
        assertEquals(3, w.ackReqInterval(3));
        assertEquals(5, w.ackReqInterval(64));
    }

    @Test
    void aWindowBelowOnePacketStillSendsOneAndAsksForEveryAck() {
        CongestionWindow w = new CongestionWindow();
        assertEquals(1, w.narrow(1024, 100, 4096));
        assertEquals(1, w.ackReqInterval(0));
    }

    @Test
    void aWindowWiderThanThePsnWindowChangesNothing() {
        CongestionWindow w = new CongestionWindow();
        w.narrow(1024, 100, 4096);
        assertEquals(1024, w.narrow(1024, 1L << 40, 4096));
        assertEquals(0, w.ackReqInterval(0));
    }
}
