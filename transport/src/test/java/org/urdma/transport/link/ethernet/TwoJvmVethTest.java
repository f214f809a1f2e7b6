package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.cm.ConnectionManager;
import org.urdma.transport.cm.ExchangeChannel;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.cm.QpHandshake;
import org.urdma.transport.cm.UrdmaExchangeFormat;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * Two JVMs in two namespaces over a veth pair: the server is {@link RdmaPeerMain} started inside namespace b
 * with {@code ip netns exec}; the client runs here with its sockets opened inside namespace a. The QP attributes
 * travel over TCP (kernel addresses .1/.2), RDMA frames use the engines' own addresses (.11/.12, resolved by ARP).
 */
@Tag("root")
class TwoJvmVethTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    static final class Rig implements AutoCloseable {
        final Topology topo = Topology.create();
        final String nsA = topo.namespace("a");
        final String nsB = topo.namespace("b");
        final Process server;
        final BlockingQueue<String> serverLines = new LinkedBlockingQueue<>();
        final StringBuilder serverLog = new StringBuilder();

        Rig(FramingKind kind, String mode) throws Exception {
            try {
                topo.veth(nsA, "eth0", nsB, "eth0", Topology.LinkOptions.mtu(9000));
                topo.disableIpv6(nsA);
                topo.disableIpv6(nsB);
                topo.addAddress(nsA, "eth0", "10.78.0.1/24");
                topo.addAddress(nsB, "eth0", "10.78.0.2/24");
                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
                for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                    if (a.startsWith("--") || a.startsWith("-Xmx")) cmd.add(a);
                }
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), RdmaPeerMain.class.getName(),
                        "eth0", kind.cliName(), "10.78.0.12/24", "18515", mode));
                server = Netns.processBuilder(nsB, cmd.toArray(String[]::new)).redirectErrorStream(true).start();
                Thread.ofPlatform().daemon().start(() -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            synchronized (serverLog) {
                                serverLog.append(line).append('\n');
                            }
                            serverLines.add(line);
                        }
                    } catch (Exception ignored) {
                        // process gone
                    }
                });
            } catch (Throwable t) {
                topo.close();
                throw t;
            }
        }

        String awaitLine(String prefix, long ms) throws InterruptedException {
            long end = System.nanoTime() + ms * 1_000_000;
            while (System.nanoTime() < end) {
                String l = serverLines.poll(50, TimeUnit.MILLISECONDS);
                if (l != null && l.startsWith(prefix)) return l;
                if (l == null && !server.isAlive() && serverLines.isEmpty()) break;
            }
            throw new AssertionError("server never printed " + prefix + "; log:\n" + log());
        }

        String log() {
            synchronized (serverLog) {
                return serverLog.toString();
            }
        }

        Port client(FramingKind kind) throws Exception {
            EthernetLinkConfig cfg = EthernetLinkConfig.of(kind, PortIdentity.of(
                    Netns.call(nsA, () -> NetInterface.lookup("eth0").mac()), "10.78.0.11/24"));
            AfPacketLink link = Netns.call(nsA, () -> AfPacketLink.open("eth0", cfg, AfPacketOptions.Version.V2));
            return new Port("client", link, link.datapath(), QpType.RC, RdmaPeerMain.REGION, 11);
        }

        @Override
        public void close() {
            try {
                server.destroyForcibly();
                server.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                topo.close();
            }
        }
    }

    static void ok(WorkCompletion w, WcOpcode op) {
        assertEquals(WcStatus.SUCCESS, w.status, w.toString());
        assertEquals(op, w.opcode);
    }

    @ParameterizedTest
    @EnumSource(value = FramingKind.class, names = {"ROCE1", "ROCE2"})
    void aClientHereAndAServerJvmInAnotherNamespaceMoveVerifiedBytes(FramingKind kind, @TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("client.pcap");
        try (Rig rig = new Rig(kind, "verify")) {
            rig.awaitLine("LISTENING", 20_000);
            try (Port c = rig.client(kind);
                 ConnectionManager cm = Netns.call(rig.nsA, ConnectionManager::new)) {
                PcapWriter w = new PcapWriter(pcap);
                c.device.control(() -> {
                    c.datapath.capture(w, System.currentTimeMillis() * 1_000_000 - System.nanoTime());
                    return null;
                });
                UrdmaExchangeFormat f = new UrdmaExchangeFormat();
                ExchangeChannel ch = Netns.call(rig.nsA, () -> cm.connect(new InetSocketAddress("10.78.0.2", ConnectionManager.DEFAULT_PORT)));
                try (ch) {
                    QpEndpoint server = QpHandshake.connect(ch, f, c.device, c.datapath, c.qp, c.endpoint(), RdmaPeerMain.connection(), 0, 2_000_000_000L);
                    assertEquals(RdmaPeerMain.REGION, server.size());
                    MemorySegment m = c.memory();
                    for (long i = 0; i < RdmaPeerMain.WRITE_LEN; i++) m.set(ValueLayout.JAVA_BYTE, i, RdmaPeerMain.pattern(i));
                    for (long i = 0; i < RdmaPeerMain.SEND_LEN; i++) m.set(ValueLayout.JAVA_BYTE, 300_000 + i, RdmaPeerMain.pattern(i + 7));
                    c.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .addSge(c.mr, 0, RdmaPeerMain.WRITE_LEN).remote(server.va(), server.rkey()));
                    ok(c.await(5000), WcOpcode.RDMA_WRITE);
                    c.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .addSge(c.mr, 300_000, RdmaPeerMain.SEND_LEN));
                    ok(c.await(5000), WcOpcode.SEND);
                    for (int k = 0; k < 3; k++) {
                        c.qp.postSend(new SendWorkRequest().wrId(3 + k).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                                .addSge(c.mr, 400_000 + 8 * k, 8).remote(server.va() + RdmaPeerMain.ATOMIC_AT, server.rkey()).atomic(5, 0));
                        ok(c.await(5000), WcOpcode.FETCH_ADD);
                        assertEquals(5L * k, m.get(ValueLayout.JAVA_LONG, 400_000 + 8 * k));
                    }
                    // READ the written bytes back from the server's memory
                    c.qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                            .addSge(c.mr, 500_000, RdmaPeerMain.WRITE_LEN).remote(server.va(), server.rkey()));
                    ok(c.await(5000), WcOpcode.RDMA_READ);
                    assertEquals(-1, m.asSlice(0, RdmaPeerMain.WRITE_LEN).mismatch(m.asSlice(500_000, RdmaPeerMain.WRITE_LEN)));
                    f.barrier(ch, c.endpoint(), "run finished");
                    f.finish(ch);
                }
                c.device.control(() -> {
                    c.datapath.closeCapture();
                    return null;
                });
            }
            assertTrue(rig.server.waitFor(20, TimeUnit.SECONDS), "server exits");
            assertEquals(0, rig.server.exitValue(), rig.log());
            assertTrue(rig.log().contains("VERIFIED"), rig.log());
        }
        AfPacketLinkVethTest.assertCaptureDecodes(pcap, kind);
    }

    @Test
    void killingTheServerJvmMidRunGivesRetryExceededThenFlushWithinTheTimeout() throws Exception {
        try (Rig rig = new Rig(FramingKind.ROCE2, "hold")) {
            rig.awaitLine("LISTENING", 20_000);
            try (Port c = rig.client(FramingKind.ROCE2);
                 ConnectionManager cm = Netns.call(rig.nsA, ConnectionManager::new)) {
                UrdmaExchangeFormat f = new UrdmaExchangeFormat();
                ExchangeChannel ch = Netns.call(rig.nsA, () -> cm.connect(new InetSocketAddress("10.78.0.2", ConnectionManager.DEFAULT_PORT)));
                QpEndpoint server;
                try (ch) {
                    server = QpHandshake.connect(ch, f, c.device, c.datapath, c.qp, c.endpoint(), KILL_TEST_CONNECTION, 0, 2_000_000_000L);
                }
                rig.awaitLine("READY", 10_000);
                int posted = 0, done = 0;
                long killedAt = 0;
                WorkCompletion first = null;
                List<WcStatus> after = new ArrayList<>();
                long end = System.nanoTime() + 20_000_000_000L;
                WorkCompletion[] wcs = new WorkCompletion[32];
                for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
                while (System.nanoTime() < end) {
                    while (first == null && posted - done < 4) {
                        c.qp.postSend(new SendWorkRequest().wrId(posted).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                                .addSge(c.mr, 0, 65536).remote(server.va(), server.rkey()));
                        posted++;
                    }
                    int n = c.cq.poll(wcs);
                    for (int i = 0; i < n; i++) {
                        done++;
                        if (wcs[i].status != WcStatus.SUCCESS) {
                            if (first == null) first = copy(wcs[i]);
                            else after.add(wcs[i].status);
                        }
                    }
                    if (killedAt == 0 && done >= 100) {
                        rig.server.destroyForcibly(); // SIGKILL mid-stream
                        killedAt = System.nanoTime();
                    }
                    if (first != null && done == posted) break;
                }
                assertNotEquals(0, killedAt, "the stream ran before the kill; first error " + first + ", done " + done
                        + "; client link " + c.datapath.counters() + "; server:\n" + rig.log());
                assertNotNull(first, "an error completion after the kill");
                long ms = (System.nanoTime() - killedAt) / 1_000_000;
                assertEquals(WcStatus.RETRY_EXC_ERR, first.status, first.toString());
                assertEquals(posted, done, "every posted WRITE completed");
                assertFalse(after.isEmpty(), "the rest are flushed");
                for (WcStatus s : after) assertEquals(WcStatus.WR_FLUSH_ERR, s);
                // timeout 17 (537 ms: a freshly started server JVM on a busy host answers its first frames late,
                // 67 ms x 4 was not always enough before the kill) x (retry_cnt 3 + 1) plus the process's death
                assertTrue(ms < 5000, "error surfaced " + ms + " ms after the kill");
            }
        }
    }

    /** The client's local ACK timeout 14 (67 ms), 3 retries: a dead peer is declared after ~270 ms. */
    static final org.urdma.transport.driver.MemoryFabric.Connection KILL_TEST_CONNECTION =
            RdmaPeerMain.connection().withTimeout(17).withRetryCnt(3);

    static WorkCompletion copy(WorkCompletion w) {
        WorkCompletion c = new WorkCompletion();
        c.wrId = w.wrId;
        c.status = w.status;
        c.opcode = w.opcode;
        return c;
    }
}
