package org.urdma.transport.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.urdma.transport.wire.FramingKind;

/** The fuzzer in CI's short form: a million mutated frames at a live RC/UC/UD pair, every oracle kept. */
class FuzzerTest {
    @Test
    void aMillionMutatedRoce2FramesCrashNothingCountEveryDropAndLeaveMemoryAsTheShadow() {
        long t0 = System.nanoTime();
        Fuzzer.Report r;
        try (Fuzzer f = new Fuzzer(FramingKind.ROCE2, 17)) {
            r = f.run(1_000_000, () -> true); // throws OracleFailure on the first violation
        }
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("roce2: %d frames in %.1f s (%.0f frames/s), %.1f ms simulated; %s%n", r.injected(), s,
            r.injected() / s, r.virtualNanos() / 1e6, r);
        assertEquals(1_000_000, r.injected());
        // every reason a RoCEv2 frame can be dropped for was hit, and most mutations reached a QP
        Set<Outcome> reasons = EnumSet.allOf(Outcome.class);
        reasons.remove(Outcome.UNKNOWN_FORMAT); // only the any-format decoder says that
        for (Outcome o : reasons) assertTrue(r.injected(o) > 0, o + " never happened: " + r.injectedOutcomes());
        assertTrue(r.injected(Outcome.PROCESSED) > r.injected() / 2, "mutations that reached a QP: " + r.injectedOutcomes());
        for (Mutation m : EnumSet.complementOf(EnumSet.of(Mutation.AFH_FIELDS))) { // RoCEv2 has no AFH
            assertTrue(r.mutations().getOrDefault(m, 0L) > 0, m + " never applied");
        }
        assertTrue(r.legitimate() > 500_000, "legitimate traffic kept flowing: " + r.legitimate());
    }

    @Test
    void theWanPairKeepsEveryOracleAndCountsForgedRequestsAheadByReason() {
        try (Fuzzer f = new Fuzzer(FramingKind.ROCE2, 23)) {
            Fuzzer.Report r = f.run(200_000, () -> true); // a WAN responder leaving RTS off its expected PSN fails the run
            System.out.println("roce2 with a WAN pair: " + r);
            assertEquals(200_000, r.injected());
            assertTrue(r.mutations().getOrDefault(Mutation.PSN_WINDOW, 0L) > 0, "PSN_WINDOW never applied");
            assertTrue(r.mutations().getOrDefault(Mutation.WAN_HEADERS, 0L) > 0, "WAN_HEADERS never applied");
            for (org.urdma.transport.counters.Counter c : new org.urdma.transport.counters.Counter[] {
                org.urdma.transport.counters.Counter.DROP_AHEAD_INVALID, org.urdma.transport.counters.Counter.DROP_AHEAD_ACCESS,
                org.urdma.transport.counters.Counter.DROP_NOT_PLACEABLE, org.urdma.transport.counters.Counter.FEC_PARITY_RCVD}) {
                assertTrue(f.count(c) > 0, c.label() + " never counted");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = FramingKind.class, names = {"ROCE1", "PAXI_STANDARD", "PAXI_AFH1", "PAXI_AFH2"})
    void otherFramingsKeepEveryOracle(FramingKind kind) {
        try (Fuzzer f = new Fuzzer(kind, 5)) {
            Fuzzer.Report r = f.run(100_000, () -> true);
            System.out.println(kind + ": " + r);
            assertEquals(100_000, r.injected());
            for (Outcome o : new Outcome[] {Outcome.TRUNCATED, Outcome.WRONG_ETHERTYPE, Outcome.UNKNOWN_OPCODE,
                Outcome.BAD_ICRC, Outcome.UNKNOWN_QP, Outcome.RX_DROPPED, Outcome.PROCESSED}) {
                assertTrue(r.injected(o) > 0, o + " never happened: " + r.injectedOutcomes());
            }
        }
    }

    @Test
    void aSeedReplaysTheSameRun() {
        Fuzzer.Report one, two, other;
        try (Fuzzer f = new Fuzzer(FramingKind.ROCE2, 99)) {
            one = f.run(20_000, () -> true);
        }
        try (Fuzzer f = new Fuzzer(FramingKind.ROCE2, 99)) {
            two = f.run(20_000, () -> true);
        }
        try (Fuzzer f = new Fuzzer(FramingKind.ROCE2, 100)) {
            other = f.run(20_000, () -> true);
        }
        assertEquals(one, two);
        assertNotEquals(one.injectedOutcomes(), other.injectedOutcomes());
    }

    @Test
    void aByteChangedOutsideTheExposedRegionsFailsTheRunNamingHostAndSeed() {
        try (Fuzzer f = new Fuzzer(FramingKind.ROCE2, 3)) {
            f.run(10_000, () -> true);
            // the region whose R_Key never left host B
            long at = 192 * 1024 + 77;
            f.memoryB().set(ValueLayout.JAVA_BYTE, at, (byte) (f.memoryB().get(ValueLayout.JAVA_BYTE, at) ^ 1));
            OracleFailure e = assertThrows(OracleFailure.class, () -> f.run(20_000, () -> true));
            assertTrue(e.getMessage().contains("host B changed at offset " + at) && e.getMessage().contains("seed 3"),
                e.getMessage());
        }
    }

    @Test
    void paxiLiteIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Fuzzer(FramingKind.PAXI_LITE, 1));
        assertTrue(e.getMessage().startsWith("framing: "), e.getMessage());
    }
}
