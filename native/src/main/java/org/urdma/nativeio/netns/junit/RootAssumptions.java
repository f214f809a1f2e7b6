package org.urdma.nativeio.netns.junit;

import org.junit.jupiter.api.Assumptions;
import org.urdma.nativeio.netns.Privileges;

/**
 * JUnit 5 helper for tests that need root (namespaces, veth, AF_PACKET, TAP): call
 * {@link #assumeRoot()} in {@code @BeforeAll}/{@code @BeforeEach}. Skips with a clear message when not
 * root and CI != "true"; fails loudly when CI=true and not root.
 */
public final class RootAssumptions {
    private RootAssumptions() {
    }

    public static void assumeRoot() {
        String reason = Privileges.skipReasonUnlessRoot(); // throws under CI=true without root
        Assumptions.assumeTrue(reason == null, reason);
    }
}
