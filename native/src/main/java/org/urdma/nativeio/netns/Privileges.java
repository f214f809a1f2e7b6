package org.urdma.nativeio.netns;

import org.urdma.nativeio.Libc;

/** Whether namespace/raw-socket tests can run: root, and what to do when not (CI=true means fail). */
public final class Privileges {
    private Privileges() {
    }

    public static boolean isRoot() {
        return Libc.geteuid() == 0;
    }

    /** True when the environment variable CI is "true" (our CI runs as root and must not skip). */
    public static boolean isCi() {
        return "true".equals(System.getenv("CI"));
    }

    /**
     * Null if root; otherwise the reason to skip. When CI=true and not root, throws an
     * {@link IllegalStateException}: CI must run these tests, never skip them.
     */
    public static String skipReasonUnlessRoot() {
        if (isRoot()) {
            return null;
        }
        String msg = "needs root (network namespaces, veth, AF_PACKET, TAP); running as euid " + Libc.geteuid();
        if (isCi()) {
            throw new IllegalStateException(msg + " with CI=true: CI must run as root, refusing to skip");
        }
        return msg + " - skipped (run as root or in CI)";
    }
}
