package org.urdma.tools.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.wire.FramingKind;

/**
 * {@code urdma perf} over TAP devices joined by a Linux bridge: two JVMs in one namespace, each the "NIC" behind
 * its own TAP ({@code --link tap:IF}); the out-of-band exchange runs over the namespace's loopback. The TAPs are
 * made up front for each run ({@code ip tuntap add}) and enslaved to the bridge, so each JVM only attaches to its
 * TAP and its frames cross the bridge from the first one.
 */
@Tag("root")
class NetPerfTwoProcessTapTest {
    private static Topology topo;
    private static String ns;
    private static final AtomicInteger PORT = new AtomicInteger(18700);

    @BeforeAll
    static void bridge() {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        try {
            ns = topo.namespace("pt");
            topo.disableIpv6(ns);
            topo.bridge(ns, "br0");
        } catch (RuntimeException e) {
            topo.close();
            throw e;
        }
    }

    @AfterAll
    static void teardown() {
        if (topo != null) topo.close();
    }

    /**
     * TAPs for one run: persistent until a JVM attaches, which makes its TAP vanish with it (TapDevice clears
     * TUNSETPERSIST), so each run gets new ones, already bridged.
     */
    static void freshTaps() {
        for (String t : new String[] {"tapa", "tapb"}) {
            try {
                topo.ip(ns, "link", "delete", t); // left by a run whose JVM never attached
            } catch (RuntimeException absent) {
                // the usual case
            }
            topo.ip(ns, "tuntap", "add", "dev", t, "mode", "tap"); // IFF_TAP | IFF_NO_PI, what TapDevice opens
            topo.setMtu(ns, t, 9000);
            topo.attach(ns, t, "br0");
            topo.up(ns, t);
        }
    }

    /** Every RC test over RoCEv2, and two over RoCEv1. */
    static Stream<Arguments> runs() {
        Stream<Arguments> rc = PerfRunCheck.testsAndTypes().filter(t -> t[1].equals("RC")).map(t -> Arguments.of(t[0], "roce2"));
        return Stream.concat(rc, Stream.of(Arguments.of("write-bw", "roce1"), Arguments.of("read-lat", "roce1")));
    }

    static String[] perf(String test, String framing, boolean server, int port, Path pcap) {
        List<String> a = new ArrayList<>(List.of("perf"));
        a.addAll(PerfRunCheck.testArgs(test, "RC"));
        a.addAll(List.of("--framing", framing, "-p", String.valueOf(port)));
        a.addAll(server ? List.of("--link", "tap:tapa", "--mac", "02:75:72:00:00:0a", "--ip", "10.87.0.12/24")
                : List.of("--link", "tap:tapb", "--mac", "02:75:72:00:00:0b", "--ip", "10.87.0.11/24"));
        if (pcap != null) a.addAll(List.of("--pcap", pcap.toString()));
        if (!server) a.add("127.0.0.1");
        return a.toArray(String[]::new);
    }

    @ParameterizedTest(name = "{0} RC {1}")
    @MethodSource("runs")
    void rcPerfTestsRunBetweenTwoJvmsOverTapsJoinedByABridge(String test, String framing, @org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        int port = PORT.getAndIncrement();
        Path pcap = test.equals("write-bw") ? dir.resolve("tap.pcap") : null;
        freshTaps();
        try (PerfProcess server = PerfProcess.start("server", ns, perf(test, framing, true, port, null));
             PerfProcess client = PerfProcess.start("client", ns, perf(test, framing, false, port, pcap))) {
            int c = client.exit(90_000);
            int s = server.exit(30_000);
            PerfRunCheck.assertVerified(test, "RC", framing, server.output(), s, client.output(), c, "TAP tap");
        }
        if (pcap != null) PerfRunCheck.assertCaptureIsValidRoce(pcap, FramingKind.parse(framing));
    }
}
