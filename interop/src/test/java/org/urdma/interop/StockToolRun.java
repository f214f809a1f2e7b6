package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * What the perftest interop classes share: one {@code urdma perf} run on a fresh TAP of the shared guest's bridge
 * against a stock tool in the guest, in either role, with the bridge captured; and the table of case results each
 * class writes as results.md.
 */
final class StockToolRun {
    static final String URDMA_IP = "10.77.0.50";
    static final String GUEST_IP = TwoGuestFixture.guestIp(0);
    static final int PORT = 18515;
    static final Duration STEP = Duration.ofSeconds(120);

    private StockToolRun() {
    }

    /** Both sides' outcome and the transcript (also written to {@code TAG.txt}). */
    record Run(Side urdma, GuestResult guest, String transcript) {
    }

    /**
     * Runs {@code urdma perf} with {@code args} (its own options; the TAP, address, MAC, timeouts and, as client, the
     * guest's address are added here) against {@code toolCmd} in the guest, capturing the bridge to {@code bridgePcap}
     * (null: no capture).
     */
    static Run run(TwoGuestFixture fx, Path out, String tag, List<String> args, String toolCmd, boolean urdmaServer,
                   Path bridgePcap) throws Exception {
        QemuGuest guest = fx.guest(0);
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("--cm-timeout", "60", "--driver", "agent"));
        if (!urdmaServer) all.add(GUEST_IP);
        Side u;
        GuestResult g;
        long t0 = System.nanoTime();
        try (TwoGuestFixture.Tap tap = fx.newTap(); PacketCapture cap = bridgePcap == null ? null : PacketCapture.start(fx.ns, TwoGuestFixture.BRIDGE, bridgePcap)) {
            all.addAll(tap.urdmaPort());
            if (urdmaServer) {
                CompletableFuture<Side> server = UrdmaInNamespace.run(fx.ns.name(), true, all.toArray(String[]::new));
                UrdmaInNamespace.awaitListening(fx.ns.name(), PORT, STEP, server, "perf");
                g = guest.run(toolCmd + " " + TwoGuestFixture.HOST_IP, STEP);
                u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            } else {
                CompletableFuture<GuestResult> server = guest.start(toolCmd);
                guest.awaitListening(PORT, STEP);
                u = UrdmaInNamespace.run(fx.ns.name(), true, all.toArray(String[]::new)).get(STEP.toSeconds(), TimeUnit.SECONDS);
                g = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            }
            if (cap != null) Thread.sleep(300); // dumpcap writes the last frames
        }
        String transcript = "urdma " + String.join(" ", all) + " (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        System.out.printf("[interop] %s: %d ms%n%s%n", tag, (System.nanoTime() - t0) / 1_000_000, transcript);
        return new Run(u, g, transcript);
    }

    /** Raises the guest's eth0 to 4200 so rxe's active MTU is 4096 (SharedGuest puts it back after the class). */
    static void guestMtu4096(QemuGuest guest) throws Exception {
        GuestResult r = guest.run("ip link set eth0 mtu 4200 && sleep 1 && ibv_devinfo -d rxe0 | grep active_mtu", STEP);
        assertTrue(r.output().contains("4096 (5)"), r.toString());
    }

    /** rxe0's port counters in {@code guest} (/sys/class/infiniband/rxe0/ports/1/hw_counters), by name. */
    static Map<String, Long> rxeCounters(QemuGuest guest) throws Exception {
        GuestResult r = guest.run("cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep . *", STEP);
        assertEquals(0, r.exitCode(), r.toString());
        Map<String, Long> m = new TreeMap<>();
        for (String line : r.output().split("\n")) {
            int c = line.indexOf(':');
            if (c > 0) m.put(line.substring(0, c).strip(), Long.parseLong(line.substring(c + 1).strip()));
        }
        return m;
    }

    /** One case of a table: its assertions; returns the PASS text, or null for a plain "PASS". */
    @FunctionalInterface
    interface Case {
        String run() throws Exception;
    }

    /** A class's case results ("MTU | tool | roles" → PASS or FAIL: reason) in a stable order, rewritten after each case. */
    static final class Table {
        private final Map<String, String> results = new ConcurrentSkipListMap<>();
        private final Path file;
        private final String title;

        Table(Path file, String title) {
            this.file = file;
            this.title = title;
        }

        /** Runs {@code c} as the row {@code key}: a failure is recorded with its first line and rethrown. */
        void record(String key, Case c) throws Exception {
            results.put(key, "FAIL: did not finish");
            try {
                String pass = c.run();
                results.put(key, pass == null ? "PASS" : "PASS: " + pass);
            } catch (AssertionError | Exception e) {
                String first = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                results.put(key, "FAIL: " + (first.length() > 140 ? first.substring(0, 140) + "…" : first));
                throw e;
            } finally {
                write();
            }
        }

        synchronized void write() throws IOException {
            if (results.isEmpty()) return;
            StringBuilder sb = new StringBuilder("# " + title + "\n\n");
            sb.append("| MTU | tool | roles | result |\n|---|---|---|---|\n");
            results.forEach((k, v) -> {
                String[] p = k.split("\\|");
                sb.append("| ").append(p[0].trim()).append(" | ").append(p[1].trim()).append(" | ").append(p[2].trim())
                        .append(" | ").append(v.replace("|", "/")).append(" |\n");
            });
            Files.writeString(file, sb.toString());
        }
    }
}
