package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The livelock and deadlock scenarios in their CI forms reproduce what the papers report. */
class ScenarioShortFormsTest {
    @Test
    void goBack0IsStuckBehindOneIn256DropsWhileGoBackNKeepsMostOfTheLink() {
        ResultTable t = Livelock.run(Livelock.Options.quick());
        System.out.print(t.text());
        assertEquals("go-back-0", t.cell(0, "reliability"));
        assertEquals("0", t.cell(0, "messages"), "go-back-0 completes no 4 MiB message");
        assertTrue(Long.parseLong(t.cell(0, "retransmitted")) > 1000, "while it keeps resending");
        assertEquals("go-back-n", t.cell(1, "reliability"));
        assertTrue(Double.parseDouble(t.cell(1, "goodput_gbps")) > 5, "go-back-N through: " + t.cell(1, "goodput_gbps"));
    }

    @Test
    void theRingDeadlocksWithoutTheWatchdogAndRecoversWithIt() {
        Deadlock.Options o = Deadlock.Options.quick();
        Deadlock.Outcome off = Deadlock.outcome(o, false);
        Deadlock.Outcome on = Deadlock.outcome(o, true);
        System.out.println(off + "\n" + on);
        assertTrue(off.stalledAtNs() >= 0, "the ring stopped");
        assertEquals(-1, off.allDoneAtNs(), "and the messages never complete");
        assertTrue(off.messages() < 3L * o.messages(), "messages: " + off.messages());
        assertTrue(on.watchdogAtNs() >= 0 && on.progressAgainAtNs() >= 0, "the watchdog fired and QPs progressed again");
        assertTrue(on.watchdogAtNs() - on.stalledAtNs() <= o.detectionNs() + 200_000, "detected within the detection time");
        assertTrue(on.watchdogDrops() > 0, "by dropping the stalled queues");
        assertTrue(on.allDoneAtNs() > 0, "every message completes with the watchdog");
        assertEquals(3L * o.messages(), on.messages());
    }
}
