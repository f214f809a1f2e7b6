package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.verbs.Gid;

/**
 * PAXI CBFC between two datapaths (the part AF_PACKET and TAP links share), frames handed across by hand: the sender
 * stops a VC at zero credits, the receiver returns freed slots in opcode 0xC0 frames, and both ends' counts agree.
 */
class CreditFlowTest {
    static final byte[] MAC_A = PortIdentity.parseMac("02:00:00:00:00:0a");
    static final byte[] MAC_B = PortIdentity.parseMac("02:00:00:00:00:0b");
    static final int CREDITS = 8;
    static final int RC_SEND_ONLY = 0x04;

    EthernetDatapath a;
    EthernetDatapath b;
    Route toB;
    final UnsafeBuffer slot = new UnsafeBuffer(new byte[2048]);
    final UnsafeBuffer payload = new UnsafeBuffer(new byte[1024]);
    /** Credit frames B sent towards A, held until the test delivers (or loses) them. */
    final List<byte[]> toA = new ArrayList<>();
    int delivered;

    static EthernetDatapath datapath(byte[] mac, String ip, int pcp) {
        return new EthernetDatapath(EthernetLinkConfig.of(FramingKind.PAXI_STANDARD, PortIdentity.of(mac, ip)).withVlan(0, pcp)
                .withFlowControl(FlowControl.CBFC, CREDITS), 0, 0);
    }

    @BeforeEach
    void wire() {
        a = datapath(MAC_A, "10.9.0.1/24", 3);
        b = datapath(MAC_B, "10.9.0.2/24", 3);
        b.attach((f, o, l) -> {
            byte[] copy = new byte[l];
            f.getBytes(o, copy);
            toA.add(copy);
            return true;
        });
        a.attach((f, o, l) -> { throw new AssertionError("A only sends data"); });
        toB = new Route().set(MAC_B, Gid.fromIpv4(new byte[] {10, 9, 0, 2}).toBytes());
    }

    /** A sends one 1 KiB SEND to B if it may; B's engine takes it at once. */
    boolean send(long now) {
        if (!a.mayStart(toB, now)) return false;
        TxPacket t = a.begin(slot, 0);
        t.start(RC_SEND_ONLY, 0x11, 0, false, false).payload(payload, 0, 1024);
        int len = a.end(t, toB, now);
        assertTrue(b.onFrame(slot, 0, len, len, -1, now, (p, at) -> delivered++));
        return true;
    }

    void deliverCredits(long now) {
        for (byte[] f : toA) assertFalse(a.onFrame(new UnsafeBuffer(f), 0, f.length, f.length, -1, now, (p, at) -> {
            throw new AssertionError("a credit frame reached the engine");
        }));
        toA.clear();
    }

    @Test
    void theSenderStopsItsVcAtZeroCreditsAndResumesWhenTheReceiverReturnsThem() {
        for (int i = 0; i < CREDITS; i++) assertTrue(send(i), "frame " + i);
        assertFalse(send(100), "no credit left on VC 3");
        assertEquals(1, a.counters().txPaused());
        assertEquals(0, a.cbfcCredits(3));
        assertEquals(CREDITS, a.cbfcCredits(2), "other VCs keep theirs");
        b.poll(200); // 8 freed >= a quarter of the credit: due
        assertEquals(1, toA.size());
        deliverCredits(300);
        assertEquals(CREDITS, a.cbfcCredits(3));
        assertTrue(send(400));
        assertEquals(CREDITS + 1, delivered);
        LinkCounters sa = a.counters(), rb = b.counters();
        assertEquals(CREDITS + 1, sa.cbfcConsumed(3));
        assertEquals(sa.cbfcConsumed(3), rb.cbfcFramesTaken(3), "consumed at A = taken at B");
        assertEquals(CREDITS, rb.cbfcGranted(3));
        assertEquals(rb.cbfcGranted(3), sa.cbfcReceived(3), "granted by B = received by A");
        assertEquals(1, rb.cbfcFramesSent());
        assertEquals(1, sa.cbfcFramesRcvd());
        assertEquals(0, sa.rxMalformed());
    }

    @Test
    void aLostCreditFrameIsMadeGoodByItsRepeat() {
        for (int i = 0; i < CREDITS; i++) send(i);
        b.poll(10);
        assertEquals(1, toA.size());
        toA.clear(); // lost on the way: A has spent everything and sends nothing that could make B answer
        assertFalse(send(20));
        assertEquals(10 + CreditFlow.REPEAT_NS, b.nextEventTime(), "a simulated driver wakes for the repeat");
        b.poll(10 + CreditFlow.REPEAT_NS - 1);
        assertEquals(0, toA.size());
        b.poll(10 + CreditFlow.REPEAT_NS);
        assertEquals(1, toA.size(), "the same totals once more");
        deliverCredits(20 + CreditFlow.REPEAT_NS);
        assertEquals(CREDITS, a.cbfcCredits(3));
        assertEquals(Long.MAX_VALUE, b.nextEventTime(), "a repeat is not repeated");
        assertEquals(CREDITS, b.counters().cbfcGranted(3), "granted once, announced twice");
        assertEquals(2, b.counters().cbfcFramesSent());
    }

    @Test
    void aTrickleIsReturnedAfterTheIntervalEvenBelowTheBatch() {
        send(1000);
        b.poll(1000);
        assertEquals(0, toA.size(), "1 freed < a quarter of 8: waits");
        assertEquals(1000 + CreditFlow.RETURN_INTERVAL_NS, b.nextEventTime(), "a simulated driver wakes for it");
        b.poll(1000 + CreditFlow.RETURN_INTERVAL_NS - 1);
        assertEquals(0, toA.size());
        b.poll(1000 + CreditFlow.RETURN_INTERVAL_NS);
        assertEquals(1, toA.size());
        deliverCredits(2000 + CreditFlow.RETURN_INTERVAL_NS);
        assertEquals(CREDITS, a.cbfcCredits(3));
    }

    @Test
    void aGrantLargerThanWhatIsOutstandingIsIgnored() {
        send(0);
        send(1);
        // a well-formed credit frame from B's address claiming 4096 frames freed on VC 3 while A has 2 out
        EthernetDatapath forger = datapath(MAC_B, "10.9.0.2/24", 3);
        TxPacket t = forger.begin(slot, 0);
        t.start(Opcode.PAXI_CBFC_CREDIT, 0, 0, false, false).cbfcCredit(3, 4096).cbfcCredit(2, 1);
        int len = forger.framing().end(t, new Route().set(MAC_A, Gid.fromIpv4(new byte[] {10, 9, 0, 1}).toBytes()).trafficClass(3 << 5));
        a.onFrame(slot, 0, len, len, -1, 2, (p, at) -> { throw new AssertionError("reached the engine"); });
        assertEquals(0, a.counters().rxMalformed());
        assertEquals(2, a.counters().cbfcBadGrants(), "VC 3: 4096 > 2 outstanding; VC 2: 1 > 0 outstanding");
        assertEquals(CREDITS - 2, a.cbfcCredits(3));
        assertEquals(CREDITS, a.cbfcCredits(2));
        // the real totals still count afterwards
        b.poll(CreditFlow.RETURN_INTERVAL_NS);
        deliverCredits(CreditFlow.RETURN_INTERVAL_NS);
        assertEquals(CREDITS, a.cbfcCredits(3));
    }

    @Test
    void creditsReachTheDeviceCounters() {
        try (EngineCounters ea = EngineCounters.inMemory("cbfc-a"); EngineCounters eb = EngineCounters.inMemory("cbfc-b")) {
            a.engineCounters(ea);
            b.engineCounters(eb);
            for (int i = 0; i < 3; i++) send(i);
            b.poll(CreditFlow.RETURN_INTERVAL_NS);
            assertEquals(3, ea.get(Counter.CBFC_CREDITS_CONSUMED, 3));
            assertEquals(3, eb.get(Counter.CBFC_CREDITS_GRANTED, 3));
        }
    }

    @Test
    void theCreditFrameIsAnRhFrameWithOpcodeC0() {
        send(0);
        b.poll(CreditFlow.RETURN_INTERVAL_NS);
        byte[] f = toA.get(0);
        // Eth 14 + 802.1Q 4 + IPv4 20 + UDP 8: the RH's opcode
        assertEquals(Opcode.PAXI_CBFC_CREDIT, f[46] & 0xFF);
        assertEquals(0x81, f[12] & 0xFF, "tagged like the data: VC from the PCP");
        assertEquals(3, (f[14] & 0xFF) >> 5);
    }
}
