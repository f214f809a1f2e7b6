package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * {@code urdma pingpong --srq -q 4} against the stock ibv_srq_pingpong -q 4 on rxe, both roles, on the run's shared
 * guest: 256 address messages each way (MAX_QP), four RC QPs receiving from one SRQ on each side, -n exchanges over
 * all QPs; both print the tool's summary lines, and urdma's receives came in on every one of its QPs.
 */
@Tag("root")
@Tag("interop")
class SrqPingpongInteropTest extends GuestToolTest {
    private static final Duration STEP = Duration.ofSeconds(90);
    private static final int ITERS = 400;

    SrqPingpongInteropTest() {
        super("srq-pingpong", "ibv_srq_pingpong");
    }

    @AfterAll
    void teardown() {
        guest = null; // SharedGuest's to close
    }

    @ParameterizedTest(name = "urdma-server={0}")
    @ValueSource(booleans = {true, false})
    void fourQpsOnOneSrqPingPongWithTheStockTool(boolean urdmaServer) throws Exception {
        String tag = "srq-q4-" + (urdmaServer ? "urdma-server" : "urdma-client");
        List<String> a = new ArrayList<>(List.of("pingpong", "--srq", "-q", "4", "-g", "1", "-m", "1024", "-n", Integer.toString(ITERS), "-s", "1024", "--timeout-s", "60"));
        String tool = "ibv_srq_pingpong -d rxe0 -g 1 -m 1024 -q 4 -n " + ITERS + " -s 1024";
        Side u;
        GuestResult g;
        try (TwoGuestFixture.Tap tap = fx.newTap()) {
            a.addAll(tap.urdmaPort());
            if (urdmaServer) {
                CompletableFuture<Side> server = UrdmaInNamespace.run(fx.ns.name(), true, a.toArray(String[]::new));
                UrdmaInNamespace.awaitListening(fx.ns.name(), StockToolRun.PORT, STEP, server, "pingpong");
                g = guest.run(tool + " " + TwoGuestFixture.HOST_IP, STEP);
                u = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            } else {
                CompletableFuture<GuestResult> server = guest.start(tool);
                guest.awaitListening(StockToolRun.PORT, STEP);
                a.add(StockToolRun.GUEST_IP);
                u = UrdmaInNamespace.run(fx.ns.name(), true, a.toArray(String[]::new)).get(STEP.toSeconds(), TimeUnit.SECONDS);
                g = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
            }
        }
        String transcript = "urdma " + String.join(" ", a) + " (exit " + u.exit() + "):\n" + u.out() + "\nguest:\n" + g;
        Files.writeString(out.resolve(tag + ".txt"), transcript);
        assertEquals(0, u.exit(), transcript);
        assertEquals(0, g.exitCode(), transcript);
        for (String side : List.of(u.out(), g.output())) {
            assertTrue(side.contains(ITERS + " iters in "), transcript);
            assertEquals(4, side.split("remote address:", -1).length - 1, "four remote QPs\n" + transcript);
        }
        Matcher m = Pattern.compile("srq: (\\d+) receives completed on 4 QPs from one SRQ \\(per QP: (\\d+) (\\d+) (\\d+) (\\d+)\\)")
                .matcher(u.out());
        assertTrue(m.find(), transcript);
        for (int k = 2; k <= 5; k++) assertTrue(Long.parseLong(m.group(k)) > 0, "every QP received\n" + transcript);
    }
}
