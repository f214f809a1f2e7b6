package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;

/** A QP's arrivals, hand-made: what its state, its transport and its FEC agreement let through. */
class QpReceiveTest {
    @Test
    void aQpInErrTakesNothing() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            int e = h.psn(0);
            h.b.modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE);
            h.deliver(h.request(Opcode.SEND_ONLY, e).payload(ResponderHarness.bytes(8, 1), 0, 8));
            assertEquals(1, h.qb.counters().get(Counter.DROP_WRONG_STATE));
            assertEquals(0, h.qb.counters().get(Counter.RCVD_PKTS));
        }
    }

    @Test
    void aResponseForAUcQpAndParityWithoutFecAreBadOpcodes() {
        try (ResponderHarness h = ResponderHarness.of(QpType.UC)) {
            Packet ack = h.request(0, h.psn(0));
            ack.opcode = Opcode.RC_ACKNOWLEDGE;
            h.deliver(ack);
            assertEquals(1, h.qb.counters().get(Counter.DROP_BAD_OPCODE), "a UC QP has no completer for responses");
        }
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            Packet parity = h.request(0, h.psn(0));
            parity.opcode = Opcode.URDMA_FEC_PARITY;
            parity.payload(ResponderHarness.bytes(64, 0), 0, 64);
            h.deliver(parity);
            assertEquals(1, h.qb.counters().get(Counter.DROP_BAD_OPCODE) + h.rig.fabric.b.counters().get(Counter.DROP_MALFORMED),
                    "no FEC agreed: parity is not taken");
            assertEquals(0, h.qb.counters().get(Counter.FEC_PARITY_RCVD));
        }
    }

    @Test
    void aCnpReachesTheRateControlAndIsCounted() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            Packet cnp = h.frames.packetWithGids();
            cnp.opcode = Opcode.CNP;
            cnp.destQp = h.b.qpNum();
            h.deliver(cnp);
            assertEquals(1, h.qb.stats().get(Counter.CNP_HANDLED));
            assertEquals(1, h.qb.counters().get(Counter.CNP_HANDLED));
        }
    }

    @Test
    void aRequestFromAnotherSourceIsDroppedBeforeTheResponder() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            int e = h.psn(0);
            Packet p = h.request(Opcode.SEND_ONLY, e).payload(ResponderHarness.bytes(8, 1), 0, 8);
            p.srcMac ^= 0x10;
            p.ipSrc = 0x0A000063;
            p.sgidLo ^= 0x10;
            h.deliver(p);
            assertEquals(1, h.qb.counters().get(Counter.DROP_FOREIGN_SOURCE));
            assertEquals(e, h.qb.responder.ePsn);
        }
    }
}
