package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * UD multicast between urdma and the guest's rxe with rdmacm-utils' stock mckey, both roles, on group 239.1.2.3
 * (RoCEv2: MGID ::ffff:239.1.2.3, MAC 01:00:5e:01:02:03): 10 messages of 100 bytes, urdma checking each receive's
 * length, GRH and the sender's QPN as immediate data. Transcripts in interop/target/interop/mckey/.
 */
@Tag("root")
@Tag("interop")
class MckeyInteropTest extends GuestToolTest {
    private static final String GUEST_IP = StockToolRun.GUEST_IP;
    private static final String GROUP = "239.1.2.3";
    /** rdma_resolve_addr needs a route to the group; the guest has none for multicast until this. */
    private static final String ROUTE = "ip route add 224.0.0.0/4 dev eth0 2>/dev/null; ";

    MckeyInteropTest() {
        super("mckey", "mckey");
    }

    @Test
    void theStockMckeySenderReachesAUrdmaReceiver() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            CompletableFuture<Side> receiver = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("mckey", "-m", GROUP));
            Thread.sleep(5000); // the TAP up and the group joined
            g = guest.run(ROUTE + "mckey -m " + GROUP + " -b " + GUEST_IP + " -s; echo rc=$?", StockToolRun.STEP);
            u = receiver.get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String t = "urdma mckey (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("stock-sender.txt"), t);
        System.out.println("[interop] stock mckey -s -> urdma mckey\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(u.out().contains("data transfers complete"), t);
        assertTrue(g.output().contains("rc=0"), t);
    }

    @Test
    void aUrdmaSenderReachesTheStockMckeyReceiver() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            CompletableFuture<GuestResult> receiver = guest.start(ROUTE + "mckey -m " + GROUP + " -b " + GUEST_IP + "; echo rc=$?");
            Thread.sleep(3000); // the stock receiver joined (it posts its receives first)
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("mckey", "-m", GROUP, "-s", "--pause-ms", "5000"))
                    .get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
            g = receiver.get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String t = "urdma mckey -s (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("stock-receiver.txt"), t);
        System.out.println("[interop] urdma mckey -s -> stock mckey\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(g.output().contains("data transfers complete") && g.output().contains("rc=0"), t);
    }
}
