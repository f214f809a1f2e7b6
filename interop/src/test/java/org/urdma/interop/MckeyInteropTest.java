package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * UD multicast between urdma and the guest's rxe with rdmacm-utils' stock mckey, both roles, on group 239.1.2.3
 * (RoCEv2: MGID ::ffff:239.1.2.3, MAC 01:00:5e:01:02:03): 10 messages of 100 bytes, urdma checking each receive's
 * length, GRH and the sender's QPN as immediate data. Transcripts in interop/target/interop/mckey/.
 */
@Tag("root")
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedGuest.class)
class MckeyInteropTest {
    private static final String URDMA_IP = StockToolRun.URDMA_IP;
    private static final String GUEST_IP = StockToolRun.GUEST_IP;
    private static final String GROUP = "239.1.2.3";
    /** rdma_resolve_addr needs a route to the group; the guest has none for multicast until this. */
    private static final String ROUTE = "ip route add 224.0.0.0/4 dev eth0 2>/dev/null; ";

    private TwoGuestFixture fx;
    private QemuGuest guest;
    private Path out;

    @BeforeAll
    void boot(TwoGuestFixture shared) throws Exception {
        out = Interop.outputDir("mckey");
        fx = shared;
        guest = fx.guest(0);
    }

    @AfterEach
    void killTools() throws Exception {
        guest.run("killall -9 mckey 2>/dev/null; true", StockToolRun.STEP);
    }

    private String[] urdma(String tap, String... more) {
        List<String> a = new java.util.ArrayList<>(List.of(more));
        a.addAll(List.of("--link", "tap:" + tap, "--ip", URDMA_IP + "/24", "--mac", "02:75:72:64:6d:50", "--timeout-s", "60"));
        return a.toArray(String[]::new);
    }

    @Test
    void theStockMckeySenderReachesAUrdmaReceiver() throws Exception {
        String tap = fx.nextTap();
        fx.ns.addTap(tap, TwoGuestFixture.BRIDGE, 4200);
        Side u;
        GuestResult g;
        try {
            CompletableFuture<Side> receiver = UrdmaInNamespace.run(fx.ns.name(), true, urdma(tap, "mckey", "-m", GROUP));
            Thread.sleep(5000); // the TAP up and the group joined
            g = guest.run(ROUTE + "mckey -m " + GROUP + " -b " + GUEST_IP + " -s; echo rc=$?", StockToolRun.STEP);
            u = receiver.get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        } finally {
            Interop.runQuietly("ip", "-n", fx.ns.name(), "link", "del", tap);
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
        String tap = fx.nextTap();
        fx.ns.addTap(tap, TwoGuestFixture.BRIDGE, 4200);
        Side u;
        GuestResult g;
        try {
            CompletableFuture<GuestResult> receiver = guest.start(ROUTE + "mckey -m " + GROUP + " -b " + GUEST_IP + "; echo rc=$?");
            Thread.sleep(3000); // the stock receiver joined (it posts its receives first)
            u = UrdmaInNamespace.run(fx.ns.name(), true, urdma(tap, "mckey", "-m", GROUP, "-s", "--pause-ms", "5000"))
                    .get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
            g = receiver.get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        } finally {
            Interop.runQuietly("ip", "-n", fx.ns.name(), "link", "del", tap);
        }
        String t = "urdma mckey -s (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("stock-receiver.txt"), t);
        System.out.println("[interop] urdma mckey -s -> stock mckey\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(g.output().contains("data transfers complete") && g.output().contains("rc=0"), t);
    }
}
