package org.urdma.switchemu.deploy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunModeTest {
    @Test
    void notRootRunsInProcessAndSaysWhy() {
        RunMode m = RunMode.decide(1000, false);
        assertTrue(m.inProcess());
        assertTrue(m.reason().contains("not root (euid 1000)") && m.reason().contains("need root"), m.reason());
    }

    @Test
    void rootRunsTheNamespacesUnlessAskedForInProcess() {
        assertFalse(RunMode.decide(0, false).inProcess());
        RunMode asked = RunMode.decide(0, true);
        assertTrue(asked.inProcess());
        assertTrue(asked.reason().contains("--in-process"), asked.reason());
        assertTrue(RunMode.decide(1000, true).inProcess());
    }
}
