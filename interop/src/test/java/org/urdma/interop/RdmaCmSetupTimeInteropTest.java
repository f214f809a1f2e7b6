package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * Issue 16's connection-setup target, printed rather than asserted on time: a stock client (librdmacm's rping, one
 * ping per process: {@code rping -c -C 1}) connects {@code -Durdma.interop.connections} times in a row (100 in the
 * suite; the target's 1000 with {@code -Durdma.interop.connections=1000}, ~3.5 min) to a persistent {@code urdma rping -s -P}, none may be lost; then the same loop against the stock {@code rping -s -P}
 * on rxe in the same guest (its own address, rxe's loopback). Printed: p50/p99 of each iteration's wall time in the
 * guest (process start, address and route resolution, REQ/REP/RTU, one ping, DREQ/DREP) for both, and for urdma the
 * REQ-to-RTU time on the bridge.
 */
@Tag("root")
@Tag("interop")
class RdmaCmSetupTimeInteropTest extends GuestToolTest {
    private static final String URDMA_IP = StockToolRun.URDMA_IP;
    private static final String GUEST_IP = StockToolRun.GUEST_IP;
    private static final int N = Integer.getInteger("urdma.interop.connections", 100);
    private static final Duration LOOP = Duration.ofSeconds(Math.max(300, N * 2L));

    RdmaCmSetupTimeInteropTest() {
        super("rdmacm-setup", "rping");
    }

    /**
     * N stock clients in a row, one line "T nanos" each (or "FAIL i" and the failed client's first output lines, "E ..."), in busybox sh: its date has no %N, so the clock is
     * the kernel's monotonic "now at ... nsecs" of /proc/timer_list, read with builtins only.
     */
    private static String loop(String addr, int port) {
        return "now() { while read a b c d; do if [ \"$a $b\" = \"now at\" ]; then echo $c; return; fi; done < /proc/timer_list; }; "
                + "i=0; while [ $i -lt " + N + " ]; do s=$(now); rping -c -a " + addr + " -p " + port
                + " -C 1 >/tmp/rping.out 2>&1 || { echo FAIL $i; head -5 /tmp/rping.out | sed 's/^/E /'; }; e=$(now); echo T $((e-s)); "
                + "i=$((i+1)); done; echo loop-done";
    }

    @Test
    void aThousandStockClientsConnectToUrdmaInARowNoneLostAndSetupTimeBesideRxe() throws Exception {
        Path pcap = out.resolve("urdma-bridge.pcap");
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, pcap)) {
            CompletableFuture<Side> server = UrdmaInNamespace.run(fx.ns.name(), true,
                    tap.urdma("rping", "-s", "-P", "-p", "7174", "--timeout-s", "20"));
            Thread.sleep(5000); // the TAP up and the CM listening
            g = guest.run(loop(URDMA_IP, 7174), LOOP);
            u = server.get(LOOP.toSeconds(), TimeUnit.SECONDS);
            Thread.sleep(500);
        }
        CompletableFuture<GuestResult> rxeServer = guest.start("rping -s -P -a " + GUEST_IP + " -p 7175");
        Thread.sleep(2000);
        GuestResult r = guest.run(loop(GUEST_IP, 7175), LOOP);
        guest.run("killall rping 2>/dev/null; true", StockToolRun.STEP);
        rxeServer.cancel(true);

        long[] urdma = times(g.output());
        long[] rxe = times(r.output());
        long[] wire = reqToRtu(pcap);
        String summary = String.format("[rdma_cm] %d sequential stock rping -c -C 1 (setup, one ping, teardown per process):%n"
                        + "  urdma server: %d completed, %d failed; p50 %.1f ms, p99 %.1f ms per connection; REQ->RTU on the bridge p50 %.2f ms, p99 %.2f ms (%d)%n"
                        + "  rxe <-> rxe (same guest, loopback): %d completed, %d failed; p50 %.1f ms, p99 %.1f ms per connection",
                N, urdma.length, fails(g.output()), pct(urdma, 50) / 1e6, pct(urdma, 99) / 1e6, pct(wire, 50) / 1e6, pct(wire, 99) / 1e6,
                wire.length, rxe.length, fails(r.output()), pct(rxe, 50) / 1e6, pct(rxe, 99) / 1e6);
        Files.writeString(out.resolve("summary.txt"), summary + "\n\nurdma:\n" + u.out() + "\nguest, against urdma (first lines):\n"
                + g.output().lines().limit(20).reduce("", (a, b) -> a + b + "\n") + "\nguest, rxe loopback (first lines):\n"
                + r.output().lines().limit(20).reduce("", (a, b) -> a + b + "\n"));
        System.out.println(summary);
        assertEquals(0, fails(g.output()), "stock clients that failed against urdma\n" + summary + "\n"
                + g.output().lines().filter(l -> l.startsWith("FAIL") || l.startsWith("E ")).reduce("", (a, b) -> a + b + "\n")
                + "urdma server:\n" + u.out());
        assertEquals(N, urdma.length, summary);
        assertTrue(u.out().contains("rping server: " + N + " clients served, " + N + " pings, 0 connections failed"), u.out());
        assertEquals(0, u.exit(), u.out());
    }

    private static long[] times(String s) {
        return s.lines().filter(l -> l.startsWith("T ")).mapToLong(l -> Long.parseLong(l.substring(2).trim())).sorted().toArray();
    }

    private static long fails(String s) {
        return s.lines().filter(l -> l.startsWith("FAIL")).count();
    }

    private static double pct(long[] sorted, int p) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    /** Per connection, the first REQ after the previous RTU to its RTU, from the capture (connections are sequential). */
    private static long[] reqToRtu(Path pcap) throws Exception {
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-Y", "infiniband.mad", "-T", "fields",
                "-e", "frame.time_epoch", "-e", "_ws.col.Info").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes());
        p.waitFor(120, TimeUnit.SECONDS);
        List<Long> d = new ArrayList<>();
        double req = -1;
        for (String line : text.lines().toList()) {
            String[] f = line.split("\t");
            if (f.length < 2) continue;
            double t = Double.parseDouble(f[0]);
            if (f[1].contains("ConnectRequest") && req < 0) req = t;
            if (f[1].contains("ReadyToUse") && req >= 0) {
                d.add(Math.round((t - req) * 1e9));
                req = -1;
            }
        }
        long[] a = d.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }
}
