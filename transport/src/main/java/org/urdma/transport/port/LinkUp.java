package org.urdma.transport.port;

import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.urdma.nativeio.NetInterface;

/**
 * Waits, when a port's link is opened, until the kernel counts the interface's link as up, as an RDMA NIC's port is
 * ACTIVE only once its netdev is. Attaching to a TAP gives it carrier at once, but the kernel acts on that later, from
 * its link-watch work: only then does the interface's operstate turn up (IFF_RUNNING), its qdisc start passing
 * frames and its bridge start forwarding to it. Until then every frame towards the port, such as the ARP request a
 * peer sends right after an out-of-band exchange, is dropped, and the kernel's RDMA address resolution gives up before
 * its ARP retry. The kernel tells the bridge under the same RTNL hold in which it sets the operstate, so one call
 * that takes RTNL after IFF_RUNNING is seen returns only once the bridge forwards.
 */
public final class LinkUp {
    /** How long the kernel may take to act on carrier: its link-watch work is rate-limited to once a second. */
    static final long WAIT_MS = 3_000;
    private static final long POLL_MS = 5;

    private LinkUp() {
    }

    /**
     * Waits until {@code ifname} (up, with carrier) is running, then takes RTNL once (setting IFF_UP again), so the
     * bridge it is enslaved to (if any) forwards to it. Needs CAP_NET_ADMIN, as opening a TAP does.
     *
     * @throws IllegalArgumentException naming the interface when it is not running within {@link #WAIT_MS}
     */
    public static void await(String ifname) {
        await(ifname, () -> NetInterface.lookup(ifname).isRunning(), () -> NetInterface.setUp(ifname, true),
                System::nanoTime, LinkUp::sleep, WAIT_MS);
    }

    /**
     * @param running    whether the kernel counts the link up (IFF_RUNNING)
     * @param rtnlCall   a call that takes RTNL, made once after {@code running} said yes
     * @param nanoClock  the clock the wait is timed by
     * @param sleepMs    sleeps that many milliseconds
     */
    static void await(String ifname, BooleanSupplier running, Runnable rtnlCall, LongSupplier nanoClock,
                      LongConsumer sleepMs, long waitMs) {
        long end = nanoClock.getAsLong() + waitMs * 1_000_000;
        while (!running.getAsBoolean()) {
            if (Thread.currentThread().isInterrupted()) return; // the caller's next blocking call sees it
            if (nanoClock.getAsLong() - end >= 0) {
                throw new IllegalArgumentException("interface " + ifname + " has carrier but the kernel did not count its link up within "
                        + waitMs + " ms (operstate not up)");
            }
            sleepMs.accept(POLL_MS);
        }
        rtnlCall.run();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
