package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The paper's matrix in simulated time, in short forms: what SACK must beat, and the windows it needs. */
class WanSimTest {
    static final long G10 = 10_000_000_000L;

    @Test
    void sackBeatsGoBackNByFarAtOnePercentLossWithMemoryVerified() {
        List<WanSim.Cell> cells = WanSim.run(new WanSim.Options(G10, List.of(20.0), List.of(0.1, 1.0), 100_000_000L,
                WanSim.rows("go-back-N,SACK"), 1));
        assertEquals(4, cells.size());
        WanSim.Cell gbn = cell(cells, "go-back-N", 1.0);
        WanSim.Cell sack = cell(cells, "SACK", 1.0);
        assertTrue(sack.fraction() >= 0.6, "SACK at 1 %: " + sack);
        assertTrue(gbn.fraction() < sack.fraction() / 5, "go-back-N collapses at 1 %: " + gbn + " vs " + sack);
        assertTrue(cell(cells, "SACK", 0.1).fraction() >= 0.85, "SACK at 0.1 %: " + cell(cells, "SACK", 0.1));
        for (WanSim.Cell c : cells) {
            assertTrue(c.verified(), "memory verified: " + c);
            assertTrue(c.drops() > 0, "the path lost packets: " + c);
        }
        assertTrue(sack.retransmitted() <= 2 * sack.drops(), "SACK resends what was lost, not windows: " + sack);
    }

    @Test
    void sackHoldsAWindowOfMoreThan32KiPacketsWithoutDroppingWhatItCannotPlace() {
        // 40 Gbit/s x 40 ms: 49 k packets of 4 KiB in flight, past the 32 Ki PSNs the receiver and the scoreboard used
        // to track; the packets beyond were dropped as not placeable and resent after timeouts
        WanSim.Cell c = WanSim.cell(new WanSim.Options(4 * G10, List.of(40.0), List.of(0.1), 60_000_000L,
                WanSim.rows("SACK"), 1), WanSim.rows("SACK").get(0), 40.0, 0.1);
        assertTrue(c.verified(), c.toString());
        assertTrue(c.fraction() >= 0.9, "goodput " + c);
        assertEquals("", c.note(), "no timeouts, nothing the receiver could not place");
        assertTrue(c.retransmitted() <= 2 * c.drops(), "resent only the losses: " + c);
    }

    @Test
    void fecRowsRebuildLossesAtNearlyTheBottleneck() {
        List<WanSim.Cell> cells = WanSim.run(new WanSim.Options(G10, List.of(20.0), List.of(0.1, 1.0), 100_000_000L,
                WanSim.rows("SACK,SACK+FEC,SACK+FEC+RRCC"), 1));
        for (WanSim.Cell c : cells) {
            WanSim.Cell sack = cell(cells, "SACK", c.lossPercent());
            assertTrue(c.verified(), "memory verified: " + c);
            assertTrue(c.drops() > 0, "the path lost packets: " + c);
            if (c == sack) continue;
            assertTrue(c.policies().startsWith("sack+fec auto, "), "the FEC offer reached the QP: " + c);
            assertTrue(c.fraction() >= 0.6, "goodput: " + c);
            assertTrue(c.fecRepaired() > 0, "losses rebuilt from parity: " + c);
            assertTrue(c.fraction() >= 0.9 * sack.fraction(), "not worse than SACK: " + c + " vs " + sack);
        }
    }

    @Test
    void rowsAndOptionsAreRefusedByName() {
        assertEquals("--rows: unknown row 'sack+tcp' (known: go-back-0, go-back-N, SACK, SACK+FEC, SACK+FEC+RRCC)",
                assertThrows(IllegalArgumentException.class, () -> WanSim.rows("SACK,sack+tcp")).getMessage());
        assertEquals("--rows: 'sack' is given twice",
                assertThrows(IllegalArgumentException.class, () -> WanSim.rows("SACK,sack")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WanSim.Options(0, List.of(20.0), List.of(1.0),
                1, WanSim.ROWS, 1)).getMessage().startsWith("--rate:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WanSim.Options(G10, List.of(20.0), List.of(100.0),
                1, WanSim.ROWS, 1)).getMessage().startsWith("--loss:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WanSim.Options(G10, List.of(-1.0), List.of(1.0),
                1, WanSim.ROWS, 1)).getMessage().startsWith("--rtt:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WanSim.Options(G10, List.of(20.0), List.of(1.0),
                0, WanSim.ROWS, 1)).getMessage().startsWith("--sim-ms:"));
    }

    static WanSim.Cell cell(List<WanSim.Cell> cells, String row, double loss) {
        return cells.stream().filter(c -> c.row().equals(row) && c.lossPercent() == loss).findFirst().orElseThrow();
    }
}
