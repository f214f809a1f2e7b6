package org.urdma.switchemu.deploy;

/**
 * Whether {@code urdma switch} / {@code urdma topo up} run the real thing (namespaces, veths, AF_PACKET:
 * root only) or the topology in-process ({@link InProcessRun}), and why, in words for the user.
 */
public record RunMode(boolean inProcess, String reason) {
    /** {@code euid}: this process's effective uid; {@code asked}: the user gave --in-process. */
    public static RunMode decide(int euid, boolean asked) {
        if (asked) {
            return new RunMode(true, "asked for (--in-process): the topology runs in this process, no namespaces made");
        }
        if (euid != 0) {
            return new RunMode(true, "not root (euid " + euid + "): namespaces, veths and AF_PACKET sockets need root, "
                + "so the topology runs in this process instead (run as root, e.g. with sudo, for the namespaces)");
        }
        return new RunMode(false, "root: namespaces, veths and AF_PACKET ports");
    }
}
