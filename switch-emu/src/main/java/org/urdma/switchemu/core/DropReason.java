package org.urdma.switchemu.core;

/** Why the switch did not forward a frame (a per-port counter each, on the ingress port). */
public enum DropReason {
    /** Shorter than its headers announce, or longer than the largest frame the switch stores. */
    MALFORMED,
    /** Destination in 01:80:C2:00:00:0x (other than PFC/PAUSE, which are consumed): never forwarded. */
    RESERVED_DA,
    /** The destination was learned on the port the frame came in on. */
    SAME_PORT,
    /** Lossy priority: the queue's shared use would exceed the Dynamic Threshold. */
    SHARED_THRESHOLD,
    /** Lossless priority: above the PFC threshold and the headroom is exhausted. */
    HEADROOM_EXHAUSTED,
    /** The whole buffer (bytes or cells) is full. */
    BUFFER_FULL,
    /** Dropped by the PFC watchdog (storm on that queue, action drop). */
    WATCHDOG,
    /** A routed switch has no route to the destination (or it is a group address, which routing never floods). */
    NO_ROUTE;

    static final DropReason[] VALUES = values();
}
