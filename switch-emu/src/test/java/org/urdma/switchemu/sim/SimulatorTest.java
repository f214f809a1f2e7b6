package org.urdma.switchemu.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimulatorTest {
    @Test
    void eventsAtOneTimeRunInTheOrderTheyWereScheduledWhateverTheirKind() {
        List<String> ran = new ArrayList<>();
        Simulator sim = new Simulator(100, (code, now) -> ran.add("code " + code + " at " + now));
        sim.schedule(200, 7L);
        sim.schedule(200, () -> ran.add("task a at " + 200));
        sim.schedule(150, 3L);
        sim.schedule(200, 8L);
        sim.schedule(200, () -> ran.add("task b at " + 200));
        sim.runUntil(1_000);
        assertEquals(List.of("code 3 at 150", "code 7 at 200", "task a at 200", "code 8 at 200", "task b at 200"), ran);
        assertEquals(1_000, sim.now(), "the clock ends at the limit");
        assertEquals(5, sim.executed());
    }

    @Test
    void manyEventsRunInTimeOrderThenInSchedulingOrder() {
        SplittableRandom rnd = new SplittableRandom(5);
        List<long[]> ran = new ArrayList<>();
        Simulator sim = new Simulator(0, (code, now) -> ran.add(new long[] {now, code}));
        for (int i = 0; i < 5_000; i++) {
            sim.schedule(sim.now() + rnd.nextInt(300), (long) i); // many ties
            if (i % 3 == 0) sim.runUntil(sim.now() + rnd.nextInt(3)); // the heap shrinks and grows again
        }
        sim.runToIdle(Long.MAX_VALUE);
        assertEquals(5_000, ran.size());
        for (int i = 1; i < ran.size(); i++) {
            long[] a = ran.get(i - 1), b = ran.get(i);
            assertTrue(a[0] < b[0] || a[0] == b[0] && a[1] < b[1], "event " + b[1] + " at " + b[0] + " ran after " + a[1] + " at " + a[0]);
        }
        ran.sort(Comparator.comparingLong(r -> r[1]));
        for (int i = 0; i < ran.size(); i++) assertEquals(i, ran.get(i)[1], "every event ran once");
    }

    @Test
    void aTaskScheduledByATaskAtTheSameTimeRunsAfterTheOthersOfThatTime() {
        List<String> ran = new ArrayList<>();
        Simulator sim = new Simulator();
        sim.schedule(10, () -> {
            ran.add("first");
            sim.schedule(10, () -> ran.add("scheduled by first"));
        });
        sim.schedule(10, () -> ran.add("second"));
        assertEquals(10, sim.runToIdle(100));
        assertEquals(List.of("first", "second", "scheduled by first"), ran);
        assertTrue(sim.idle());
    }

    @Test
    void runUntilStopsAfterTheEventThatSaysItIsDoneAndLeavesTheClockThere() {
        int[] seen = {0};
        Simulator sim = new Simulator(0, (code, now) -> seen[0]++);
        for (long t = 10; t <= 50; t += 10) sim.schedule(t, t);
        assertTrue(sim.runUntil(1_000, () -> seen[0] == 3));
        assertEquals(30, sim.now());
        assertFalse(sim.runUntil(1_000, () -> false));
        assertEquals(1_000, sim.now());
        assertEquals(5, seen[0]);
    }

    @Test
    void aTaskInThePastIsRefusedNamingBothTimes() {
        Simulator sim = new Simulator();
        sim.runUntil(50);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sim.schedule(49, () -> { }));
        assertEquals("cannot schedule in the past: at=49 now=50", e.getMessage());
    }

    @Test
    void aPrimitiveEventWithoutAHandlerFailsNamingItsCode() {
        Simulator sim = new Simulator();
        sim.schedule(1, 42L);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> sim.runUntil(2));
        assertEquals("event code 42: this simulator has no handler", e.getMessage());
    }
}
