package org.urdma.switchemu.core;

/** SONiC PFC watchdog actions once a storm is detected on a queue. */
public enum WatchdogAction {
    /** Drop what is queued and what arrives for the queue, until restoration. */
    DROP,
    /** Ignore received pause for the queue and keep transmitting, until restoration. */
    FORWARD,
    /** Only count and report the storm. */
    ALERT
}
