package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * {@code urdma pingpong} against the stock ibv_rc/uc/ud_pingpong on the kernel's rxe, both ways: urdma has its own
 * TAP on the guest's bridge (its own MAC, 10.77.0.50), the guest runs the unmodified tool with -g 1 (RoCEv2) and -c.
 * Each case captures the bridge and the capture must decode with every ICRC good. The run's shared guest (SharedGuest) serves all cases.
 */
@Tag("root")
@Tag("interop")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PingpongInteropTest extends GuestToolTest {
    private static final String URDMA_IP = "10.77.0.50";
    private static final String GUEST_IP = TwoGuestFixture.guestIp(0);
    private static final int PORT = 18515;
    private static final int ITERS = 20;
    private static final Duration STEP = Duration.ofSeconds(90);

    PingpongInteropTest() {
        // bridge and TAPs at 4200; the guest's eth0 at 1500 (active_mtu 1024) until the MTU 4096 cases (SharedGuest
        // puts it back to 1500 after this class)
        super("pingpong", "ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong");
    }

    @AfterAll
    void teardown() {
        guest = null; // the shared guest is SharedGuest's to close
    }

    /** urdma pingpong inside the test's namespace on a thread of this JVM; System.out is captured (not System.err). */
    private CompletableFuture<Side> urdma(String... args) {
        return UrdmaInNamespace.run(fx.ns.name(), false, args);
    }

    private List<String> urdmaArgs(TwoGuestFixture.Tap tap, String transport, int mtu, String size, String peer, Path pcap) {
        List<String> a = new ArrayList<>(List.of("pingpong", "--transport", transport));
        a.addAll(tap.urdmaPort());
        a.addAll(List.of("-g", "1", "-m", Integer.toString(mtu), "-n", Integer.toString(ITERS), "-c",
                "--timeout-s", "60", "--pcap", pcap.toString()));
        if (size != null) a.addAll(List.of("-s", size));
        if (peer != null) a.add(peer);
        return a;
    }

    private void awaitUrdmaListening() throws Exception {
        UrdmaInNamespace.awaitListening(fx.ns.name(), PORT, STEP, null, "pingpong");
    }

    @Order(1)
    @ParameterizedTest(name = "mtu 1024 {0} urdma-server={1}")
    @CsvSource({"rc,true", "rc,false", "uc,true", "uc,false", "ud,true", "ud,false"})
    void atMtu1024UrdmaAndTheStockToolPingPongWithValidatedData(String transport, boolean urdmaServer) throws Exception {
        // UD: a message fits one packet; the tool refuses -s above the port's active MTU (1024 here)
        runCase(transport, urdmaServer, 1024, transport.equals("ud") ? "1024" : null);
    }

    private boolean guestAt4096;

    @Order(2)
    @ParameterizedTest(name = "mtu 4096 {0} urdma-server={1}")
    @CsvSource({"rc,true", "rc,false", "uc,true", "uc,false", "ud,true", "ud,false"})
    void atMtu4096UrdmaAndTheStockToolPingPongWithValidatedData(String transport, boolean urdmaServer) throws Exception {
        if (!guestAt4096) {
            GuestResult r = guest.run("ip link set eth0 mtu 4200 && sleep 1 && ibv_devinfo -d rxe0 | grep active_mtu", STEP);
            assertTrue(r.output().contains("4096 (5)"), r.toString());
            guestAt4096 = true;
        }
        // RC/UC: 16 KiB messages, four 4 KiB packets each
        runCase(transport, urdmaServer, 4096, transport.equals("ud") ? "4096" : "16384");
    }

    /**
     * RNR, urdma the receiver: urdma pingpong serves with its receives posted 300 ms after the exchange, so the stock
     * ibv_rc_pingpong client's first SEND (min_rnr_timer 12, rnr_retry 7) meets no receive. urdma answers RNR NAKs
     * (AETH syndrome 001 01100), rxe counts them (rcvd_rnr_err) and sends the SEND again after each, until the
     * receives are there; then the run completes with validated data.
     */
    @Order(3)
    @org.junit.jupiter.api.Test
    void urdmaWithoutPostedReceivesRnrNaksTheStockClientWhichRetries() throws Exception {
        String tag = "rnr-urdma-receiver";
        Path bridgePcap = out.resolve(tag + "-bridge.pcap");
        Map<String, Long> before = StockToolRun.rxeCounters(guest);
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, bridgePcap)) {
            List<String> a = urdmaArgs(tap, "rc", 1024, null, null, out.resolve(tag + "-urdma.pcap"));
            a.addAll(List.of("--recv-delay-ms", "300"));
            CompletableFuture<Side> server = urdma(a.toArray(String[]::new));
            awaitUrdmaListening();
            g = guest.run("ibv_rc_pingpong -d rxe0 -g 1 -m 1024 -n " + ITERS + " -c " + TwoGuestFixture.HOST_IP, STEP);
            u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            Thread.sleep(300);
        }
        Map<String, Long> after = StockToolRun.rxeCounters(guest);
        RoceTally fromUrdma = RoceTally.of(bridgePcap, URDMA_IP);
        RoceTally fromRxe = RoceTally.of(bridgePcap, GUEST_IP);
        StringBuilder delta = new StringBuilder();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0) delta.append(k).append(" +").append(d).append('\n');
        });
        String transcript = "urdma (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g + "\nrxe hw_counters: " + after.keySet()
                + "\nrxe hw_counters delta:\n" + delta
                + "capture, from urdma: " + fromUrdma + "\ncapture, from rxe: " + fromRxe + "\nRNR NAKs followed by a resend of their PSN: "
                + RoceTally.rnrOutcome(bridgePcap, URDMA_IP, GUEST_IP) + "\n";
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        System.out.println("[interop] " + tag + "\n" + transcript);
        assertEquals(0, u.exit(), transcript);
        assertEquals(0, g.exitCode(), transcript);
        assertTrue(u.out().contains("receives posted 300 ms after the exchange"), transcript);
        assertTrue(u.out().contains("data validated: "), transcript);
        assertFalse(g.output().toLowerCase(Locale.ROOT).contains("invalid"), transcript);
        // urdma NAKed with the QP's min_rnr_timer (12); at least a few times in 300 ms (rxe waits >= 1 jiffy each)
        assertTrue(fromUrdma.rnrNaks() >= 3, transcript);
        assertEquals(java.util.Set.of(12), fromUrdma.rnrTimerCodes(), transcript);
        assertEquals(fromUrdma.rnrNaks(), urdmaCount(u.out(), "rnr naks sent"), transcript);
        // rxe heard every one and sent the SEND again after each
        assertEquals(fromUrdma.rnrNaks(), after.get("rcvd_rnr_err") - before.getOrDefault("rcvd_rnr_err", 0L), transcript);
        assertEquals(new RoceTally.RnrOutcome(fromUrdma.rnrNaks(), 0, 0), RoceTally.rnrOutcome(bridgePcap, URDMA_IP, GUEST_IP), transcript);
        CaptureChecks.assertAllDecode(bridgePcap, out.resolve(tag + "-decode.txt"));
    }

    private static long urdmaCount(String out, String what) {
        var m = java.util.regex.Pattern.compile(what + " (\\d+)").matcher(out);
        assertTrue(m.find(), what + " in " + out);
        return Long.parseLong(m.group(1));
    }

    private void runCase(String transport, boolean urdmaServer, int mtu, String size) throws Exception {
        String tool = "ibv_" + transport + "_pingpong";
        // ibv_ud_pingpong has no -m: its MTU is the port's active_mtu
        String toolCmd = tool + " -d rxe0 -g 1 -n " + ITERS + " -c" + (transport.equals("ud") ? "" : " -m " + mtu)
                + (size != null ? " -s " + size : "");
        String tag = "mtu" + mtu + "-" + transport + (urdmaServer ? "-urdma-server" : "-urdma-client");
        Path bridgePcap = out.resolve(tag + "-bridge.pcap");
        Path urdmaPcap = out.resolve(tag + "-urdma.pcap");
        Side u;
        GuestResult g;
        long t0 = System.nanoTime();
        // a fresh TAP per case: a bridge port whose TAP was closed and reopened did not get flooded frames again
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, bridgePcap)) {
            if (urdmaServer) {
                CompletableFuture<Side> server = urdma(urdmaArgs(tap, transport, mtu, size, null, urdmaPcap).toArray(String[]::new));
                awaitUrdmaListening();
                // the exchange runs over the namespace's kernel TCP (10.77.0.1); the RoCE address is in the GID
                g = guest.run(toolCmd + " " + TwoGuestFixture.HOST_IP, STEP);
                u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            } else {
                CompletableFuture<GuestResult> server = guest.start(toolCmd);
                guest.awaitListening(PORT, STEP);
                u = urdma(urdmaArgs(tap, transport, mtu, size, GUEST_IP, urdmaPcap).toArray(String[]::new)).get(STEP.toSeconds(), TimeUnit.SECONDS);
                g = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            }
            Thread.sleep(300); // dumpcap writes the last frames
        }
        String transcript = "urdma (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        System.out.printf("[interop] %s: %d ms%n%s%n", tag, (System.nanoTime() - t0) / 1_000_000, transcript);
        assertEquals(0, u.exit(), transcript);
        assertEquals(0, g.exitCode(), transcript);
        String expectedBytes = (long) (size == null ? 4096 : Integer.parseInt(size)) * ITERS * 2 + " bytes in ";
        assertTrue(u.out().contains(expectedBytes) && u.out().contains(ITERS + " iters in "), transcript);
        assertTrue(g.output().contains(expectedBytes), transcript);
        assertFalse(g.output().toLowerCase(Locale.ROOT).contains("invalid"), transcript);
        if (urdmaServer) assertTrue(u.out().contains("data validated: "), transcript);

        // every RoCE frame on the bridge, both directions, decodes with a good ICRC
        int valid = CaptureChecks.assertAllDecode(bridgePcap, out.resolve(tag + "-decode.txt"));
        // at least one frame per message each way (more with MTU segmentation and RC ACKs)
        assertTrue(valid >= 2 * ITERS, "RoCE frames on the bridge: " + valid);
        // and the path MTU was the one asked for: the largest RoCEv2 frame carries a full MTU of payload
        // (14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + payload + 4 ICRC; UD adds an 8-byte DETH)
        int largest = CaptureChecks.largestFrame(bridgePcap);
        int message = size == null ? 4096 : Integer.parseInt(size);
        assertEquals(58 + Math.min(mtu, message) + (transport.equals("ud") ? 8 : 0), largest, "largest frame on the bridge");
    }
}
