package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * rdmacm-utils' cmtime (rdma-core 44) and ucmatose in the guest against {@code urdma cmtime} and {@code urdma ucmatose},
 * both roles: a hundred connections at once all connect with no REQ resent and no REJ; four carry cmatose's exchange;
 * a connection past the server's count is refused at once with REJ reason 28, read off the wire.
 */
@Tag("root")
@Tag("interop")
class RdmacmToolsInteropTest extends GuestToolTest {
    private static final String URDMA_IP = StockToolRun.URDMA_IP;
    private static final String GUEST_IP = StockToolRun.GUEST_IP;
    private static final Duration STEP = Duration.ofSeconds(180);

    RdmacmToolsInteropTest() {
        super("rdmacm-tools", "cmtime ucmatose");
    }

    /** A urdma server in the namespace and a stock client in the guest, captured on the bridge. */
    private record Run(Side urdma, GuestResult guest, Path pcap, String transcript) {
    }

    private Run urdmaServer(String tag, String[] urdmaArgs, String guestCmd) throws Exception {
        Path pcap = out.resolve(tag + "-bridge.pcap");
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, pcap)) {
            CompletableFuture<Side> server = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma(urdmaArgs[0],
                    java.util.Arrays.copyOfRange(urdmaArgs, 1, urdmaArgs.length)));
            Thread.sleep(3000); // the TAP up and the CM listening
            g = guest.run(guestCmd + "; echo rc=$?", STEP);
            u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            Thread.sleep(1000); // the last frames into the capture
        }
        String transcript = "urdma (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g + "\n";
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        System.out.println("[interop] " + tag + "\n" + transcript);
        return new Run(u, g, pcap, transcript);
    }

    private static long count(String text, String what) {
        return text.lines().filter(l -> l.contains(what)).count();
    }

    @Test
    void aHundredStockCmtimeConnectionsAtOnceAllConnectToUrdmaWithNoReqResent() throws Exception {
        Run r = urdmaServer("cmtime-urdma-server", new String[] {"cmtime", "-c", "100"}, "cmtime -s " + URDMA_IP + " -c 100");
        assertTrue(r.guest().output().contains("rc=0"), r.transcript());
        assertFalse(r.guest().output().contains("event: RDMA_CM_EVENT"), "every connection made:\n" + r.transcript());
        assertEquals(0, r.urdma().exit(), r.transcript());
        assertTrue(r.urdma().out().contains("100 connections accepted, 100 disconnected, 0 failed"), r.transcript());
        String mads = RdmaCmInteropTest.tshark(r.pcap(), "infiniband.mad", "_ws.col.Info");
        assertEquals(100, count(mads, "ConnectRequest"), "one REQ per connection, none resent:\n" + mads);
        assertEquals(0, count(mads, "ConnectReject"), mads);
        CaptureChecks.assertAllDecode(r.pcap(), out.resolve("cmtime-urdma-server-decode.txt"));
    }

    @Test
    void aHundredStockCmtimeConnectionsAtOnceAreAllServedByAPersistentUrdmaRping() throws Exception {
        Run r = urdmaServer("cmtime-urdma-rping-P", new String[] {"rping", "-s", "-P", "-p", "7471", "--timeout-s", "15"}, "cmtime -s " + URDMA_IP + " -c 100");
        assertTrue(r.guest().output().contains("rc=0"), r.transcript());
        assertFalse(r.guest().output().contains("event: RDMA_CM_EVENT"), "every connection made:\n" + r.transcript());
        assertEquals(0, r.urdma().exit(), r.transcript());
        assertTrue(r.urdma().out().contains("rping server: 100 clients served, 0 pings, 0 connections failed"), r.transcript());
        String mads = RdmaCmInteropTest.tshark(r.pcap(), "infiniband.mad", "_ws.col.Info");
        assertEquals(0, count(mads, "ConnectReject"), mads);
    }

    @Test
    void stockUcmatoseWithFourConnectionsRunsItsExchangeWithUrdma() throws Exception {
        Run r = urdmaServer("ucmatose-urdma-server", new String[] {"ucmatose", "-c", "4"}, "ucmatose -s " + URDMA_IP + " -c 4");
        assertTrue(r.guest().output().contains("return status 0"), r.transcript());
        assertTrue(r.guest().output().contains("data transfers complete"), r.transcript());
        assertEquals(0, r.urdma().exit(), r.transcript());
        assertTrue(r.urdma().out().contains("disconnected"), r.transcript());
        String mads = RdmaCmInteropTest.tshark(r.pcap(), "infiniband.mad", "_ws.col.Info");
        assertEquals(4, count(mads, "ReadyToUse"), mads);
        assertEquals(0, count(mads, "ConnectReject"), mads);
    }

    @Test
    void aConnectionPastTheServersCountIsRejectedAtOnceWithReason28OnTheWire() throws Exception {
        Run r = urdmaServer("ucmatose-urdma-refuses", new String[] {"ucmatose", "-c", "1", "-C", "0"},
                "ucmatose -s " + URDMA_IP + " -c 2 -C 0");
        assertTrue(r.guest().output().contains("RDMA_CM_EVENT_REJECTED, error: 28"), r.transcript());
        assertEquals(0, r.urdma().exit(), r.transcript());
        String rej = RdmaCmInteropTest.tshark(r.pcap(), "infiniband.cm.rej.reason", "frame.time_relative", "infiniband.cm.rej.reason",
                "infiniband.cm.rej.msgrej", "infiniband.cm.rej.remotecommid");
        List<String> rows = rej.lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, rows.size(), "one REJ:\n" + rej);
        String[] f = rows.get(0).split("\t");
        assertEquals(28, Integer.decode(f[1].trim()), "REJ reason, as the kernel sends for a request its application refuses:\n" + rej);
        assertEquals(0, Integer.decode(f[2].trim()), "the REJ refuses the REQ:\n" + rej);
        // its REQ: the one whose local communication ID the REJ names, answered within one round trip
        String reqs = RdmaCmInteropTest.tshark(r.pcap(), "infiniband.cm.req", "frame.time_relative", "infiniband.cm.req");
        String reqTime = reqs.lines().filter(l -> l.endsWith(f[3].trim())).findFirst().orElseThrow(() -> new AssertionError(reqs + "\n" + rej))
                .split("\t")[0];
        double gapMs = (Double.parseDouble(f[0]) - Double.parseDouble(reqTime)) * 1e3;
        System.out.printf("[interop] REQ -> REJ (28) on the bridge: %.1f ms%n", gapMs);
        assertTrue(gapMs < 1000, "REJ " + gapMs + " ms after its REQ, not at once:\n" + reqs + rej);
    }

    @Test
    void urdmaUcmatoseWithFourConnectionsRunsItsExchangeWithTheStockServer() throws Exception {
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            CompletableFuture<GuestResult> server = guest.start("ucmatose -c 4");
            Thread.sleep(2000);
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("ucmatose", "-s", GUEST_IP, "-c", "4")).get(STEP.toSeconds(), TimeUnit.SECONDS);
            g = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
        }
        String transcript = "urdma (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g + "\n";
        System.out.println("[interop] ucmatose-urdma-client\n" + transcript);
        assertEquals(0, u.exit(), transcript);
        assertTrue(u.out().contains("data transfers complete"), transcript);
        assertTrue(g.output().contains("return status 0"), transcript);
    }

    @Test
    void urdmaCmtimeWithAHundredConnectionsAgainstTheStockServer() throws Exception {
        Side u;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            guest.start("cmtime -b " + GUEST_IP); // serves until killed
            Thread.sleep(2000);
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("cmtime", "-s", GUEST_IP, "-c", "100")).get(STEP.toSeconds(), TimeUnit.SECONDS);
        }
        System.out.println("[interop] cmtime-urdma-client\n" + u.out());
        assertEquals(0, u.exit(), u.out());
        assertTrue(u.out().contains("step              total ms     max ms     min us  us / conn"), u.out());
        assertFalse(u.out().contains("event: RDMA_CM_EVENT"), u.out());
    }
}
