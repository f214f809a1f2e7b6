package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Proves the harness: two guests with the kernel's rxe on one bridge run the stock tools against
 * each other (no urdma involved), with the bridge traffic captured to a pcap.
 */
@Tag("root")
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedGuest.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RxeToRxeSmokeTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);

    private TwoGuestFixture fx;
    private PacketCapture capture;
    private Path out;
    private boolean addedGuest;

    @BeforeAll
    void boot(TwoGuestFixture shared) throws Exception {
        out = Interop.outputDir("smoke");
        // guest 0 is the run's shared guest (eth0 at 1500); guest 1 boots beside it for this class only
        fx = shared;
        fx.addGuest(1500, 4200);
        addedGuest = true;
        System.out.println("[interop] two guests ready, boot times " + fx.bootTimes);
        if (PacketCapture.available()) {
            capture = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, out.resolve("rxe-smoke.pcap"));
        }
    }

    @AfterAll
    void teardown() {
        if (capture != null) {
            capture.close();
        }
        if (addedGuest) {
            fx.removeLastGuest();
        }
    }

    @Test
    @Order(1)
    void rxeComesUpWithActiveMtu1024AndIpv4MappedGidAtIndex1() throws Exception {
        for (QemuGuest g : fx.guests) {
            GuestResult r = g.run("ibv_devinfo -d rxe0 && cat /sys/class/infiniband/rxe0/ports/1/gids/1",
                    Duration.ofSeconds(60));
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.output().contains("active_mtu:\t\t1024 (3)"), r.toString());
            String ip = TwoGuestFixture.guestIp(fx.guests.indexOf(g));
            String[] o = ip.split("\\.");
            String mapped = String.format("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x",
                    Integer.parseInt(o[0]), Integer.parseInt(o[1]), Integer.parseInt(o[2]), Integer.parseInt(o[3]));
            assertTrue(r.output().contains(mapped), r.toString());
        }
    }

    @Test
    @Order(2)
    void ibWriteBwRunsBetweenTwoRxeGuests() throws Exception {
        runPair("ib_write_bw -d rxe0 -x 1 -n 50 -F", 18515);
    }

    @Test
    @Order(3)
    void ibvRcPingpongRunsBetweenTwoRxeGuests() throws Exception {
        runPair("ibv_rc_pingpong -d rxe0 -g 1 -n 10", 18515);
    }

    /** Every tool of issue 6 between two rxe guests: the baseline urdma must later match in both roles. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {
        "ib_read_bw -d rxe0 -x 1 -n 20 -F",
        "ib_send_bw -d rxe0 -x 1 -n 20 -F",
        "ib_atomic_bw -d rxe0 -x 1 -n 20 -F -A CMP_AND_SWAP",
        "ib_atomic_bw -d rxe0 -x 1 -n 20 -F -A FETCH_AND_ADD",
        "ib_send_lat -d rxe0 -x 1 -n 20 -F",
        "ib_write_lat -d rxe0 -x 1 -n 20 -F",
        "ib_read_lat -d rxe0 -x 1 -n 20 -F",
        "ib_write_bw -d rxe0 -x 1 -n 20 -F -c UC",
        "ib_send_bw -d rxe0 -x 1 -n 20 -F -c UC",
        "ib_send_bw -d rxe0 -x 1 -n 20 -F -c UD",
        "ibv_ud_pingpong -d rxe0 -g 1 -n 10 -s 512",
        "ibv_uc_pingpong -d rxe0 -g 1 -n 10"})
    @Order(3)
    void everyStockToolRunsBetweenTwoRxeGuests(String tool) throws Exception {
        runPair(tool, 18515);
    }

    @Test
    @Order(4)
    void guestMtu4200GivesActiveMtu4096AndTheToolsStillRun() throws Exception {
        for (QemuGuest g : fx.guests) {
            GuestResult r = g.run("ip link set eth0 mtu 4200 && sleep 1 && ibv_devinfo -d rxe0 | grep active_mtu",
                    Duration.ofSeconds(60));
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.output().contains("4096 (5)"), r.toString());
        }
        runPair("ibv_rc_pingpong -d rxe0 -g 1 -n 10 -m 4096", 18515);
        runPair("ib_write_bw -d rxe0 -x 1 -n 50 -F", 18515);
    }

    @Test
    @Order(5)
    void captureHoldsRoceV2FramesBetweenTheGuests() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(capture != null, "dumpcap (tshark) not installed");
        capture.close();
        String fields = Interop.run(Duration.ofSeconds(60), "tshark", "-n", "-r", capture.file().toString(),
                "-Y", "udp.dstport == 4791", "-T", "fields", "-e", "ip.src", "-e", "ip.dst", "-e", "infiniband.bth.opcode");
        long frames = fields.lines().filter(l -> l.startsWith("10.77.")).count(); // tshark may warn on stderr
        System.out.println("[interop] capture " + capture.file() + ": " + frames + " RoCEv2 frames, "
                + Files.size(capture.file()) + " bytes");
        assertTrue(frames >= 120, "expected the RDMA WRITEs and pingpong SENDs on the bridge, got " + frames);
        assertTrue(fields.contains("10.77.0.12\t10.77.0.11\t"), "client-to-server frames missing");
        String lengths = Interop.run(Duration.ofSeconds(60), "tshark", "-n", "-r", capture.file().toString(),
                "-Y", "udp.dstport == 4791", "-T", "fields", "-e", "frame.len");
        int max = lengths.lines().filter(l -> l.matches("\\d+")).mapToInt(Integer::parseInt).max().orElse(0);
        writeOobSequences();
        // MTU 4096 payloads: 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 4096 + 4 ICRC (+ RETH on FIRST)
        assertTrue(max >= 4154, "no 4096-byte payload frame seen, largest RoCE frame " + max);
        // 64 KiB writes: RDMA WRITE FIRST (6) / MIDDLE (7) / LAST (8); 4 KiB pingpong SENDs at MTU 1024: 0/1/2
        // and at MTU 4096 SEND ONLY (4); ACKs (17)
        for (String opcode : new String[] {"6", "7", "8", "0", "2", "4", "17"}) {
            assertTrue(fields.lines().anyMatch(l -> l.endsWith("\t" + opcode)), "no BTH opcode " + opcode + " decoded");
        }
    }

    /**
     * The out-of-band TCP exchange of every tool run, as the sizes each side wrote in order
     * (S = server 10.77.0.11, C = client 10.77.0.12), for whoever teaches urdma each tool's sequence.
     */
    private void writeOobSequences() throws IOException, InterruptedException {
        String rows = Interop.run(Duration.ofSeconds(60), "tshark", "-n", "-r", capture.file().toString(),
                "-Y", "tcp.port == 18515 && tcp.len > 0", "-T", "fields", "-e", "tcp.stream", "-e", "ip.src",
                "-e", "tcp.len");
        java.util.Map<String, StringBuilder> streams = new java.util.TreeMap<>(
                java.util.Comparator.comparingInt(Integer::parseInt));
        for (String row : rows.lines().filter(l -> l.matches("\\d+\t10\\.77\\..*")).toList()) {
            String[] f = row.split("\t");
            streams.computeIfAbsent(f[0], k -> new StringBuilder())
                    .append(f[1].endsWith(".11") ? " S" : " C").append(f[2]);
        }
        StringBuilder sb = new StringBuilder("# tcp.stream: side+bytes per write, in order (S=server, C=client)\n");
        for (int i = 0; i < ranTools.size() && i < streams.size(); i++) {
            sb.append(ranTools.get(i)).append(":").append(streams.values().toArray()[i]).append('\n');
        }
        Files.writeString(out.resolve("oob-sequences.txt"), sb.toString());
        System.out.println("[interop] out-of-band sequences:\n" + sb);
    }

    private final java.util.List<String> ranTools = new java.util.ArrayList<>();

    /** Server on guest 0, client on guest 1 pointing at it; both must exit 0. */
    private void runPair(String tool, int port) throws IOException, InterruptedException {
        QemuGuest server = fx.guest(0);
        QemuGuest client = fx.guest(1);
        long t0 = System.nanoTime();
        ranTools.add(tool);
        CompletableFuture<GuestResult> s = server.start(tool);
        server.awaitListening(port, Duration.ofSeconds(60));
        GuestResult c = client.run(tool + " " + TwoGuestFixture.guestIp(0), TOOL_TIMEOUT);
        GuestResult sr;
        try {
            sr = s.get(TOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            server.run("killall -9 " + tool.split(" ")[0], Duration.ofSeconds(30));
            throw new AssertionError("server did not finish: " + e + "\nclient:\n" + c, e);
        }
        System.out.printf("[interop] %s: %.1f s%n--- server ---%n%s%n--- client ---%n%s%n", tool,
                (System.nanoTime() - t0) / 1e9, sr, c);
        assertEquals(0, c.exitCode(), "client failed:\n" + c + "\nserver:\n" + sr);
        assertEquals(0, sr.exitCode(), "server failed:\n" + sr + "\nclient:\n" + c);
    }
}
