package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * rdma_cm against rxe beyond rping: QP1 is on for every urdma port (a stock rping's REQ to a {@code urdma perf} that
 * never asked for rdma_cm is rejected, reason 8, not left unanswered), and {@code urdma perf ... -R} connects the way
 * perftest's -R does (no TCP: the exchange's own RC QP through rdma_cm on port 18515 of RDMA_PS_TCP, its steps as
 * SENDs, binary key messages; then the test's QP through rdma_cm between two syncs) with the stock ib_write_bw,
 * ib_read_bw, ib_send_bw and ib_send_lat -R in both roles, urdma checking its memory. Transcripts and pcaps land in interop/target/interop/rdmacm-perftest/.
 */
@Tag("root")
@Tag("interop")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RdmaCmPerftestInteropTest extends GuestToolTest {
    private static final String URDMA_IP = StockToolRun.URDMA_IP;
    private static final Duration STEP = StockToolRun.STEP;
    private static final int ITERS = 100;

    RdmaCmPerftestInteropTest() {
        super("rdmacm-perftest", "rping ib_write_bw ib_read_bw ib_send_bw ib_send_lat");
    }

    /** Issue 16 found urdma silent to a REQ (rping hung until killed); now QP1 answers on any urdma perf port. */
    @Order(1)
    @Test
    void aReqToAPerfServerThatNeverAskedForRdmaCmIsRejectedAtOnce() throws Exception {
        String tag = "qp1-always-on";
        Path pcap = out.resolve(tag + "-bridge.pcap");
        // the guest's command ends with the host's address (StockToolRun appends it): the REQ first, then the run
        String toolCmd = "rping -c -a " + URDMA_IP + " -p 9999 -C 1 -v; echo rping-rc=$?; "
                + "ib_write_bw -d rxe0 -x 1 -F -c RC -n " + ITERS + " -s 4096 -m 1024";
        StockToolRun.Run r = StockToolRun.run(fx, out, tag, List.of("perf", "write-bw", "-c", "RC", "-m", "1024", "-n",
                Integer.toString(ITERS), "-s", "4096"), toolCmd, true, pcap);
        String t = r.transcript();
        assertTrue(r.guest().output().contains("RDMA_CM_EVENT_REJECTED"), t);
        assertFalse(r.guest().output().contains("rping-rc=0"), t);
        assertEquals(0, r.urdma().exit(), t);
        assertEquals(0, r.guest().exitCode(), t);
        String mads = tshark(pcap);
        assertTrue(mads.contains("ConnectRequest") && mads.contains("ConnectReject"), mads);
    }

    @Order(2)
    @ParameterizedTest(name = "{0} -R urdma-server={2}")
    @CsvSource({"ib_write_bw,write-bw,false", "ib_read_bw,read-bw,false", "ib_send_bw,send-bw,false", "ib_send_lat,send-lat,false",
            "ib_write_bw,write-bw,true", "ib_read_bw,read-bw,true", "ib_send_bw,send-bw,true", "ib_send_lat,send-lat,true"})
    void urdmaPerfAndTheStockToolConnectThroughRdmaCmWithDashR(String tool, String urdmaTest, boolean urdmaServer) throws Exception {
        String tag = tool + "-R-" + (urdmaServer ? "urdma-server" : "urdma-client");
        Path pcap = out.resolve(tag + "-bridge.pcap");
        String toolCmd = tool + " -d rxe0 -x 1 -F -R -c RC -n " + ITERS + " -s 4096 -m 1024";
        List<String> args = new ArrayList<>(List.of("perf", urdmaTest, "-R", "-c", "RC", "-m", "1024", "-n",
                Integer.toString(ITERS), "-s", "4096", "--cm-timeout", "60", "--driver", "agent"));
        if (!urdmaServer) args.add(StockToolRun.GUEST_IP);
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, pcap)) {
            args.addAll(tap.urdmaPort());
            // -R has no TCP: the exchange itself is an rdma_cm connection to the server's RoCE address (urdma's own)
            if (urdmaServer) {
                CompletableFuture<Side> server = UrdmaInNamespace.run(fx.ns.name(), true, args.toArray(String[]::new));
                Thread.sleep(5000); // the TAP up and the CM listening: the stock client does not retry its first REQ
                g = guest.run(toolCmd + " " + URDMA_IP, STEP);
                u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            } else {
                CompletableFuture<GuestResult> server = guest.start(toolCmd);
                Thread.sleep(3000);
                u = UrdmaInNamespace.run(fx.ns.name(), true, args.toArray(String[]::new)).get(STEP.toSeconds(), TimeUnit.SECONDS);
                g = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            }
            Thread.sleep(500); // the last frames into the capture
        }
        String t = "urdma " + String.join(" ", args) + " (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve(tag + ".txt"), t);
        System.out.println("[interop] " + tag + "\n" + t);
        assertEquals(0, u.exit(), "urdma perf exit\n" + t);
        assertEquals(0, g.exitCode(), "stock " + tool + " exit\n" + t);
        assertTrue(u.out().contains("QPs connected by rdma_cm (-R)"), t);
        for (String check : urdmaChecks(urdmaTest, urdmaServer)) assertTrue(u.out().contains(check), "urdma's check '" + check + "'\n" + t);
        int valid = CaptureChecks.assertAllDecode(pcap, out.resolve(tag + "-decode.txt"));
        assertTrue(valid >= ITERS, "RoCE frames on the bridge: " + valid);
        String mads = tshark(pcap);
        Files.writeString(out.resolve(tag + "-tshark.txt"), mads);
        // two connections: the exchange's QP, then the test's
        assertTrue(count(mads, "ConnectRequest") >= 2 && count(mads, "ReadyToUse") >= 2, mads);
        assertFalse(mads.contains("Malformed"), mads);
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
        return n;
    }

    /** What urdma printed about its own memory (a failed check fails its run with exit 1); as PerftestBw/LatInteropTest. */
    private static List<String> urdmaChecks(String test, boolean urdmaServer) {
        if (urdmaServer) {
            return switch (test) {
                case "write-bw" -> List.of("remote memory verified: ", "nothing outside them");
                case "read-bw" -> List.of("unchanged by the client's READs");
                case "send-bw" -> List.of("remote memory verified: " + ITERS + " messages");
                default -> List.of("received data: 4096 bytes in place, nothing past them");
            };
        }
        return switch (test) {
            case "read-bw" -> List.of("READ data verified: " + ITERS + " reads", "local memory verified");
            case "send-lat" -> List.of("received data: 4096 bytes in place, nothing past them");
            default -> List.of("local memory verified");
        };
    }

    private static String tshark(Path pcap) throws Exception {
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-Y", "infiniband.mad", "-T", "fields",
                "-e", "frame.number", "-e", "_ws.col.Info", "-e", "_ws.malformed", "-e", "_ws.expert").redirectErrorStream(true).start();
        String fields = new String(p.getInputStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        return fields;
    }
}
