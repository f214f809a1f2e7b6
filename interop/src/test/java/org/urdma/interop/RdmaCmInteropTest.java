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
 * rdma_cm between urdma and the kernel's rxe + rdmacm-utils in the guest, both roles: the IB CM's MADs on QP1 (REQ,
 * REP, RTU, DREQ/DREP, REJ) then rping's READ/WRITE exchange with -V; a REQ for a port nobody listens on gets a REJ
 * (reason 8) at once. Every frame on the bridge must decode with a good ICRC, and tshark must see CM MADs, none malformed.
 */
@Tag("root")
@Tag("interop")
class RdmaCmInteropTest extends GuestToolTest {
    private static final String URDMA_IP = "10.77.0.50";
    private static final String GUEST_IP = TwoGuestFixture.guestIp(0);
    private static final Duration STEP = Duration.ofSeconds(120);
    private static final int PINGS = 50;

    RdmaCmInteropTest() {
        super("rdmacm", "rping");
    }

    @Test
    void stockRpingClientPingsUrdmaAndAPortNobodyListensOnIsRejectedAtOnce() throws Exception {
        String tag = "rping-urdma-server";
        Path pcap = out.resolve(tag + "-bridge.pcap");
        Side u;
        GuestResult rej;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, pcap)) {
            CompletableFuture<Side> server = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("rping", "-s", "-v", "-p", "7174"));
            Thread.sleep(3000); // the TAP up and the CM listening
            long t0 = System.nanoTime();
            rej = guest.run("rping -c -a " + URDMA_IP + " -p 9999 -C 1 -v; echo rc=$?", STEP);
            long rejMs = (System.nanoTime() - t0) / 1_000_000;
            Files.writeString(out.resolve(tag + "-rej.txt"), rej + "\nwall " + rejMs + " ms\n");
            g = guest.run("rping -c -a " + URDMA_IP + " -p 7174 -C " + PINGS + " -v -V", STEP);
            u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            Thread.sleep(1000); // the last frames into the capture
        }
        String transcript = "urdma (exit " + u.exit() + "):\n" + u.out() + "\nguest REJ case:\n" + rej + "\nguest:\n" + g + "\n";
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        System.out.println("[interop] " + tag + "\n" + transcript);
        // the stock client learns of the REJ (reason 8: invalid service ID) and gives up without retrying
        assertTrue(rej.output().contains("RDMA_CM_EVENT_REJECTED"), transcript);
        assertFalse(rej.output().contains("rc=0"), transcript);
        assertEquals(0, g.exitCode(), transcript);
        assertEquals(PINGS, count(g.output(), "ping data: rdma-ping-"), transcript);
        assertEquals(0, u.exit(), transcript);
        assertEquals(PINGS, count(u.out(), "server ping data: rdma-ping-"), transcript);
        CaptureChecks.assertAllDecode(pcap, out.resolve(tag + "-decode.txt"));
        assertCmDecodes(pcap, tag);
        // on the wire, the REJ follows the first REQ within one round trip: no retry, no response timeout (rxe's ~4 s)
        String times = tshark(pcap, "infiniband.mad", "frame.time_relative", "_ws.col.Info");
        String[] first = times.lines().filter(l -> l.contains("ConnectRequest")).findFirst().orElseThrow().split("\t");
        String[] reject = times.lines().filter(l -> l.contains("ConnectReject")).findFirst().orElseThrow().split("\t");
        double gapMs = (Double.parseDouble(reject[0]) - Double.parseDouble(first[0])) * 1e3;
        System.out.printf("[interop] REQ -> REJ on the bridge: %.1f ms%n", gapMs);
        assertTrue(gapMs < 250, "REJ " + gapMs + " ms after the REQ\n" + times);
    }

    static String tshark(Path pcap, String filter, String... fields) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-Y", filter, "-T", "fields"));
        for (String f : fields) cmd.addAll(List.of("-e", f));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        String text = new String(p.getInputStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        return text;
    }

    @Test
    void urdmaRpingClientPingsTheStockServer() throws Exception {
        String tag = "rping-urdma-client";
        Path pcap = out.resolve(tag + "-bridge.pcap");
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, pcap)) {
            CompletableFuture<GuestResult> server = guest.start("rping -s -a " + GUEST_IP + " -p 7174 -v");
            Thread.sleep(2000);
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("rping", "-c", "-a", GUEST_IP, "-p", "7174", "-C",
                    Integer.toString(PINGS), "-v", "-V")).get(STEP.toSeconds(), TimeUnit.SECONDS);
            g = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            Thread.sleep(1000); // the last frames into the capture
        }
        String transcript = "urdma (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g + "\n";
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        System.out.println("[interop] " + tag + "\n" + transcript);
        assertEquals(0, u.exit(), transcript);
        assertEquals(PINGS, count(u.out(), "ping data: rdma-ping-"), transcript);
        assertEquals(PINGS, count(g.output(), "server ping data: rdma-ping-"), transcript);
        CaptureChecks.assertAllDecode(pcap, out.resolve(tag + "-decode.txt"));
        assertCmDecodes(pcap, tag);
    }

    /** urdma as client to a port nobody listens on in the guest: rxe's CM answers REJ and urdma fails at once naming it. */
    @Test
    void urdmaClientToAPortNobodyListensOnReportsTheRejReason() throws Exception {
        Side u;
        long t0 = System.nanoTime();
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            u = UrdmaInNamespace.run(fx.ns.name(), true, tap.urdma("rping", "-c", "-a", GUEST_IP, "-p", "7199", "-C", "1"))
                    .get(STEP.toSeconds(), TimeUnit.SECONDS);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String transcript = "urdma (exit " + u.exit() + ", " + ms + " ms):\n" + u.out();
        System.out.println("[interop] rping-urdma-client-rejected\n" + transcript);
        assertTrue(u.exit() != 0, transcript);
        assertTrue(u.out().contains("REJ reason 8"), transcript);
        assertFalse(u.out().contains("\tat ") || u.out().contains("internal error"), "a user's error: one line\n" + transcript);
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
        return n;
    }

    /** tshark names the CM messages and reports no malformed packet or expert error. */
    private void assertCmDecodes(Path pcap, String tag) throws Exception {
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-Y", "infiniband.mad", "-T", "fields",
                "-e", "frame.number", "-e", "_ws.col.Info", "-e", "_ws.malformed", "-e", "_ws.expert").redirectErrorStream(true).start();
        String fields = new String(p.getInputStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        Files.writeString(out.resolve(tag + "-tshark.txt"), fields);
        assertTrue(fields.contains("ConnectRequest") && fields.contains("ConnectReply") && fields.contains("ReadyToUse"), fields);
        assertTrue(fields.contains("DisconnectRequest") && fields.contains("DisconnectReply"), fields);
        assertFalse(fields.contains("Malformed"), fields);
    }
}
