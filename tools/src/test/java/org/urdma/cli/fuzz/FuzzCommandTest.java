package org.urdma.cli.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.cli.CliRun;

class FuzzCommandTest {
    @Test
    void runsForTheDurationAndPrintsRateAndEveryReason() {
        CliRun r = CliRun.run("fuzz", "--duration", "2s", "--seed", "7", "--framing", "roce1");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("fuzz: framing roce1, seed 7, duration 2s"), r.out());
        assertTrue(r.out().contains("frames/s"), r.out());
        assertTrue(r.out().contains("BAD_ICRC") && r.out().contains("UNKNOWN_QP") && r.out().contains("PROCESSED"), r.out());
        assertTrue(r.out().contains("oracle: no failure"), r.out());
    }

    @Test
    void badValuesAreRefusedByNameInOneLine() {
        for (String[] args : new String[][] {
            {"fuzz", "--duration", "10x"}, {"fuzz", "--duration", "0s"}, {"fuzz", "--framing", "roce9"},
            {"fuzz", "--framing", "paxi-lite"}, {"fuzz", "--seed", "abc"}}) {
            CliRun r = CliRun.run(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().contains(args[1]), r.err());
        }
    }
}
