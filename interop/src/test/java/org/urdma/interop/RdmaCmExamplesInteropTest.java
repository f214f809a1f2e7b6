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
 * librdmacm's examples against urdma, both roles: the stock rdma_client (rdmacm-utils) to {@code urdma rdma_server},
 * and {@code urdma rdma_client} to the stock rdma_server, 16 bytes each way over an RC connection rdma_cm made on port
 * 7471, checked on urdma's side (the stock examples send zeros); udaddy, UD through SIDR on RDMA_PS_UDP port 7174: 10
 * messages of 100 bytes each way, urdma checking length, GRH and the sender's QPN as immediate data. Transcripts in interop/target/interop/rdmacm-examples/.
 */
@Tag("root")
@Tag("interop")
class RdmaCmExamplesInteropTest extends GuestToolTest {
    private static final String URDMA_IP = StockToolRun.URDMA_IP;
    private static final String GUEST_IP = StockToolRun.GUEST_IP;

    RdmaCmExamplesInteropTest() {
        super("rdmacm-examples", "rdma_server rdma_client");
    }

    @Test
    void theStockRdmaClientTalksToUrdmaRdmaServer() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            UrdmaInNamespace.Running server = UrdmaInNamespace.start(fx.ns.name(), true, tap.urdma("rdma_server"));
            server.awaitOutput("rdma_server: listening on port 7471", StockToolRun.STEP);
            g = guest.run("rdma_client -s " + URDMA_IP + "; echo rc=$?", StockToolRun.STEP);
            u = server.done().get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String t = "urdma rdma_server (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("stock-client.txt"), t);
        System.out.println("[interop] stock rdma_client -> urdma rdma_server\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(u.out().contains("rdma_server: received 00000000000000000000000000000000, sent 16 bytes back"), t);
        assertTrue(g.output().contains("rc=0"), t);
    }

    @Test
    void urdmaRdmaClientTalksToTheStockRdmaServer() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            CompletableFuture<GuestResult> server = guest.start("rdma_server; echo rc=$?");
            guest.awaitRdmaCmListening(7471, StockToolRun.STEP);
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("rdma_client", "-s", GUEST_IP)).get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
            g = server.get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String t = "urdma rdma_client (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("stock-server.txt"), t);
        System.out.println("[interop] urdma rdma_client -> stock rdma_server\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(u.out().contains("rdma_client: sent 16 bytes, received 00000000000000000000000000000000"), t);
        assertTrue(g.output().contains("rc=0"), t);
    }

    @Test
    void theStockUdaddyClientGetsUrdmasUdQpThroughSidrAndTheyExchangeMessages() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            UrdmaInNamespace.Running server = UrdmaInNamespace.start(fx.ns.name(), true, tap.urdma("udaddy"));
            server.awaitOutput("udaddy: listening on port 7174", StockToolRun.STEP);
            g = guest.run("udaddy -s " + URDMA_IP + "; echo rc=$?", StockToolRun.STEP);
            u = server.done().get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String t = "urdma udaddy (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("udaddy-stock-client.txt"), t);
        System.out.println("[interop] stock udaddy client -> urdma udaddy server\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(u.out().contains("udaddy: received 10 messages of 100 bytes"), t);
        assertTrue(g.output().contains("data transfers complete") && g.output().contains("rc=0"), t);
    }

    @Test
    void urdmaUdaddyClientGetsTheStockServersUdQpThroughSidr() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            CompletableFuture<GuestResult> server = guest.start("udaddy; echo rc=$?");
            guest.awaitRdmaCmListening(7174, StockToolRun.STEP);
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("udaddy", "-s", GUEST_IP)).get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
            g = server.get(StockToolRun.STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String t = "urdma udaddy -s (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve("udaddy-stock-server.txt"), t);
        System.out.println("[interop] urdma udaddy client -> stock udaddy server\n" + t);
        assertEquals(0, u.exit(), t);
        assertTrue(u.out().contains("udaddy: SIDR_REP: QPN 0x") && u.out().contains("Q_Key 0x01234567"), t);
        assertTrue(u.out().contains("received 10 replies"), t);
        assertTrue(g.output().contains("data transfers complete") && g.output().contains("rc=0"), t);
    }
}
