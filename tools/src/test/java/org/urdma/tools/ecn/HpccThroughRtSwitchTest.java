package org.urdma.tools.ecn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.CliRun;
import org.urdma.cli.wire.Tshark;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.rt.RtOptions;
import org.urdma.switchemu.rt.RtSwitch;
import org.urdma.switchemu.rt.RtSwitchRunner;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.transport.api.Stats;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.rate.Hpcc;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * As root: two urdma devices with HPCC (h1, h2 on 10G links) WRITE to a third (h3, on a 1G link) through the real-time
 * switch with INT stamping and PFC on (HPCC's lossless setting). The capture of the switch's port to h3 holds every request stamped once (hop count 1, the
 * port's 1 Gbit/s rate, the queue the two senders build), h3's ACKs come back to the senders with the echo unstamped,
 * tshark with {@code urdma wire dissector}'s script reads the same stacks, and each sender's HPCC saw the port busy and
 * cut its rate from the 10 Gbit/s line towards its share of the bottleneck.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HpccThroughRtSwitchTest {
    private static final String YAML = """
        hosts:
          - {name: h1, mac: "02:00:00:0f:00:01", ip: 10.9.1.1/24}
          - {name: h2, mac: "02:00:00:0f:00:02", ip: 10.9.1.2/24}
          - {name: h3, mac: "02:00:00:0f:00:03", ip: 10.9.1.3/24}
        switches:
          - {name: s1, buffer: 8MB, pfc: [0], intStamp: true}
        links:
          - {endpoints: [h1, s1], rate: 10G}
          - {endpoints: [h2, s1], rate: 10G}
          - {endpoints: [h3, s1], rate: 1G}
        """;
    private static final long LINE = 10_000_000_000L;
    private static final long BOTTLENECK = 1_000_000_000L;
    private static final double ETA = 0.5;

    @BeforeAll
    static void rootAndTshark() {
        RootAssumptions.assumeRoot();
        Tshark.requireInstalled();
    }

    @Test
    void requestsToTheBottleneckAreStampedOnceEchoedBackAndHpccSlowsBothSenders(@TempDir Path dir) throws Exception {
        Topology topo = TopologyParser.parse(YAML, "hpcc test topology");
        int toH3 = port(topo, "h3");
        int toH1 = port(topo, "h1");
        int size = 4 << 20; // per sender: 8 MiB through a 1 Gbit/s port, ~70 ms at its rate
        List<WatchedHpcc> senders = Collections.synchronizedList(new ArrayList<>());
        // base RTT 1 ms: engines and switch share the machine's cores with other work, so round trips take that long.
        // Target η 0.5: the responder coalesces ACKs per engine pass, so a sender gets few of them and updates its
        // reference rarely; at the paper's 0.95 each update with U near 1 moves the rate a few percent, at 0.5 each one
        // that finds the port busy halves it
        Hpcc.Config d = Hpcc.Config.defaults(LINE, 1_000_000);
        Hpcc.Config config = new Hpcc.Config(LINE, d.minRateBps(), d.baseRttNanos(), ETA, d.maxStage(), d.rateAiBps());
        RateControl.Factory hpcc = RateControl.Factory.of("hpcc", () -> {
            WatchedHpcc h = new WatchedHpcc(new Hpcc(config));
            senders.add(h);
            return h;
        });
        long[] rates = new long[2];
        long[] minRates = new long[2];
        double[] maxU = new double[2];
        long[] updates = new long[2];
        long[] retransmitted = new long[2];
        long elapsedNs;
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network network = NetworkBuilder.build(topo, net, ns -> { });
            RtSwitch sw = Netns.call(network.namespace("s1"),
                    () -> RtSwitch.fromTopology(topo, "s1", RtOptions.defaults().pcapDir(dir)));
            RtSwitchRunner runner = RtSwitchRunner.start(sw);
            try (NamespaceHost h1 = host(topo, network, "h1", "10.9.1.11/24", size, 1, hpcc);
                 NamespaceHost h2 = host(topo, network, "h2", "10.9.1.12/24", size, 2, hpcc);
                 NamespaceHost h3 = host(topo, network, "h3", "10.9.1.13/24", 2 * size, 3, RateControl.none())) {
                assertEquals(2, senders.size(), "one HPCC per sending QP");
                QueuePair fromH2 = h3.addQp();
                h1.connect(h3.endpoint());
                h3.connect(h1.endpoint());
                h2.connect(h3.endpoint(fromH2));
                h3.connect(fromH2, h2.endpoint());
                fill(h1.mr, 7);
                fill(h2.mr, 11);
                long t0 = System.nanoTime();
                int chunk = 256 * 1024;
                for (NamespaceHost h : List.of(h1, h2)) {
                    long base = h == h1 ? 0 : size;
                    for (int off = 0; off < size; off += chunk) {
                        h.qp.postSend(new SendWorkRequest().wrId(off).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                                .addSge(h.mr, off, chunk).remote(h3.mr.address() + base + off, h3.mr.rkey()));
                    }
                }
                int[] done = new int[2];
                String failed = null;
                WorkCompletion[] wc = {new WorkCompletion()};
                long end = System.nanoTime() + 20_000_000_000L;
                while (failed == null && (done[0] < size / chunk || done[1] < size / chunk) && System.nanoTime() < end) {
                    for (int i = 0; i < 2; i++) {
                        if ((i == 0 ? h1 : h2).cq.poll(wc) == 1) {
                            failed = wc[0].status == WcStatus.SUCCESS ? null : wc[0].toString();
                            done[i]++;
                        }
                    }
                }
                elapsedNs = System.nanoTime() - t0;
                StringBuilder losses = new StringBuilder();
                for (NamespaceHost h : List.of(h1, h2)) {
                    losses.append(String.format("%s resent %d, %d ACK timeouts; ", h == h1 ? "h1" : "h2",
                            h.device.control(() -> Stats.of(h.qp).get(Counter.RETRANSMITTED_PKTS)),
                            h.device.control(() -> Stats.of(h.qp).get(Counter.ACK_TIMEOUTS))));
                }
                losses.append("h3 kernel rx drops ").append(h3.link.kernelStatistics().drops());
                for (int i = 0; i < sw.portCount(); i++) {
                    losses.append(", s1 port ").append(i).append(" drops ").append(sw.core().counters(i).totalDrops())
                        .append(" rx ring drops ").append(sw.port(i).io().describeCounters().replaceAll(".* seen, (\\d+) dropped.*", "$1"));
                }
                System.out.println(losses);
                assertNull(failed, losses.toString());
                assertEquals(size / chunk, done[0], "h1's writes completed");
                assertEquals(size / chunk, done[1], "h2's writes completed");
                assertEquals(-1, h1.mr.segment().mismatch(h3.mr.segment().asSlice(0, size)), "h1's bytes at h3");
                assertEquals(-1, h2.mr.segment().mismatch(h3.mr.segment().asSlice(size, size)), "h2's bytes at h3");
                for (int i = 0; i < 2; i++) {
                    NamespaceHost h = i == 0 ? h1 : h2;
                    WatchedHpcc cc = senders.get(i);
                    rates[i] = h.device.control(cc.hpcc::rateBps);
                    updates[i] = h.device.control(cc.hpcc::updates);
                    minRates[i] = h.device.control(cc::minRateBps);
                    maxU[i] = h.device.control(cc::maxUtilisation);
                    retransmitted[i] = h.device.control(() -> Stats.of(h.qp).get(Counter.RETRANSMITTED_PKTS));
                }
            } finally {
                runner.close();
            }
            Stamps toReceiver = stamps(SwitchCapture.file(dir, "s1", toH3), 0x02_00_00_0f_00_03L);
            Stamps toSender = stamps(SwitchCapture.file(dir, "s1", toH1), 0x02_00_00_0f_00_01L);
            long stamped = sw.core().counters(toH3).intStamped;
            System.out.printf("%.1f ms; to h3: %d requests, %d stamped by the switch, max qlen %d B, %d with a queue; "
                    + "to h1: %d ACKs, %d with a stack, %d stamped; HPCC: lowest rates %d, %d bit/s, highest U %.2f, %.2f, "
                    + "last rates %d, %d bit/s, %d, %d updates; %d, %d packets resent; switch drops to h3 %d%n",
                    elapsedNs / 1e6, toReceiver.frames, stamped, toReceiver.maxQlen, toReceiver.queued,
                    toSender.frames, toSender.withStack, sw.core().counters(toH1).intStamped, minRates[0], minRates[1],
                    maxU[0], maxU[1], rates[0], rates[1], updates[0], updates[1], retransmitted[0], retransmitted[1],
                    sw.core().counters(toH3).totalDrops());
            assertTrue(toReceiver.frames >= 2 * size / 1024, "requests in the capture to h3: " + toReceiver.frames);
            assertEquals(toReceiver.frames, stamped, "every request the port sent h3 was stamped");
            assertEquals(toReceiver.frames, toReceiver.hopOne, "hop count 1, not an echo, the port's 1G rate");
            assertTrue(toReceiver.queued > 0 && toReceiver.maxQlen > 1024,
                    "the two senders built a queue: max " + toReceiver.maxQlen + " B");
            assertTrue(toReceiver.maxQlen <= 8 << 20, "within the switch's buffer: " + toReceiver.maxQlen);
            // an ACK answers at least one stamped request (the responder coalesces per engine pass), so all carry an echo
            assertTrue(toSender.frames >= 10 && toSender.withStack == toSender.frames, toSender.withStack + " of "
                    + toSender.frames + " ACKs to h1 carry an INT stack");
            assertEquals(toSender.withStack, toSender.hopOne, "every stack to h1 is h3's echo of the one hop");
            assertEquals(0, sw.core().counters(toH1).intStamped, "the switch leaves echoes alone");
            // each sender saw the port busy (U over η) and cut its rate at least as far as that U demands (R_c / (U / η)
            // + R_AI, R_c at most the line); how busy it found the port depends on how the two overlapped in real time,
            // so the deep cut is asked of the sender that saw it busiest
            for (int i = 0; i < 2; i++) {
                assertTrue(updates[i] > 5, "HPCC updated its reference rate: " + updates[i]);
                assertTrue(maxU[i] > ETA, "HPCC saw the bottleneck over its target: U " + maxU[i]);
                double bound = LINE * ETA / maxU[i] + d.rateAiBps() + LINE * 0.01;
                assertTrue(minRates[i] <= bound, "HPCC slowed from the 10G line as U " + maxU[i] + " asks: " + minRates[i]
                        + " bit/s, bound " + (long) bound);
            }
            int busiest = maxU[0] >= maxU[1] ? 0 : 1;
            assertTrue(minRates[busiest] < LINE / 2 || maxU[busiest] < 2 * ETA * 1.02,
                    "the sender that saw U " + maxU[busiest] + " cut under half its line: " + minRates[busiest]);
            checkTshark(SwitchCapture.file(dir, "s1", toH3), dir);
        }
    }

    /** HPCC as the sender runs it, recording (on the engine thread) the lowest rate it set and the highest U it saw. */
    private static final class WatchedHpcc implements RateControl {
        final Hpcc hpcc;
        long minRate = Long.MAX_VALUE;
        double maxU;

        WatchedHpcc(Hpcc hpcc) {
            this.hpcc = hpcc;
        }

        long minRateBps() {
            return minRate;
        }

        double maxUtilisation() {
            return maxU;
        }

        @Override
        public long nextSendTime(long now) {
            return hpcc.nextSendTime(now);
        }

        @Override
        public void onSent(int payloadBytes, long now) {
            hpcc.onSent(payloadBytes, now);
        }

        @Override
        public boolean wantsTelemetry() {
            return hpcc.wantsTelemetry();
        }

        @Override
        public int ackEvery() {
            return hpcc.ackEvery();
        }

        @Override
        public long windowBytes() {
            return hpcc.windowBytes();
        }

        @Override
        public void onTelemetry(org.agrona.DirectBuffer stack, int offset, int ackPsn, int nextPsn, long now) {
            hpcc.onTelemetry(stack, offset, ackPsn, nextPsn, now);
            minRate = Math.min(minRate, hpcc.rateBps());
            maxU = Math.max(maxU, hpcc.utilisation());
        }

        @Override
        public String name() {
            return hpcc.name();
        }
    }

    /** The INT stacks of the frames a port sent {@code to}: requests (stamped) and ACKs (echoes). */
    private static final class Stamps {
        int frames;
        int withStack;
        int hopOne;
        int queued;
        long maxQlen;
    }

    private static Stamps stamps(Path pcap, long to) throws Exception {
        Stamps s = new Stamps();
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                if (d.classify(r.buffer(), 0, r.capturedLength()).framing() == null
                        || d.decode(r.buffer(), 0, r.capturedLength(), p) != DecodeStatus.OK || p.dstMac != to) {
                    continue;
                }
                boolean request = OpcodeTable.has(p.opcode, OpcodeTable.REQ);
                boolean ack = OpcodeTable.has(p.opcode, OpcodeTable.ACK);
                if (!request && !ack) continue;
                s.frames++;
                if ((p.resv7 & OpcodeTable.RESV7_INT) == 0) continue;
                s.withStack++;
                UnsafeBuffer st = p.intStack;
                boolean oneHop = IntStack.hops(st, 0) == 1 && IntStack.echo(st, 0) == ack
                        && (!request || IntStack.rateBps(st, 0, 0) == BOTTLENECK);
                s.hopOne += oneHop ? 1 : 0;
                if (request && oneHop) {
                    s.maxQlen = Math.max(s.maxQlen, IntStack.queueBytes(st, 0, 0));
                    s.queued += IntStack.queueBytes(st, 0, 0) > 0 ? 1 : 0;
                }
            }
        }
        return s;
    }

    /** tshark with the dissector reads every frame's INT stack of the capture as urdma's codecs do. */
    private static void checkTshark(Path pcap, Path dir) throws Exception {
        Path lua = dir.resolve("urdma.lua");
        assertEquals(0, CliRun.run("wire", "dissector", "--out", lua.toString()).exit());
        List<Map<String, String>> rows = Tshark.fields(pcap, List.of("-X", "lua_script:" + lua), "urdma.int.flags",
                "urdma.int.hops", "urdma.int.hop.rate", "urdma.int.hop.qlen", "urdma.int.hop.tx", "urdma.int.hop.ts");
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        int i = 0;
        int compared = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                Map<String, String> row = rows.get(i++);
                boolean stack = d.classify(r.buffer(), 0, r.capturedLength()).framing() != null
                        && d.decode(r.buffer(), 0, r.capturedLength(), p) == DecodeStatus.OK
                        && (p.resv7 & OpcodeTable.RESV7_INT) != 0;
                if (!stack) {
                    assertEquals("", row.get("urdma.int.hops"), "frame " + i);
                    continue;
                }
                UnsafeBuffer st = p.intStack;
                int n = IntStack.hops(st, 0);
                String where = "frame " + i;
                assertEquals(String.format("0x%02x", IntStack.flags(st, 0)), row.get("urdma.int.flags"), where);
                assertEquals(Integer.toString(n), row.get("urdma.int.hops"), where);
                if (n == 1) {
                    assertEquals(Long.toString(IntStack.rateBps(st, 0, 0) / 1_000_000_000L), row.get("urdma.int.hop.rate"), where);
                    assertEquals(Long.toString(IntStack.queueBytes(st, 0, 0)), row.get("urdma.int.hop.qlen"), where);
                    assertEquals(Long.toString(IntStack.txUnits(st, 0, 0) * IntStack.UNIT), row.get("urdma.int.hop.tx"), where);
                    assertEquals(Long.toString(IntStack.timeNs(st, 0, 0)), row.get("urdma.int.hop.ts"), where);
                }
                compared++;
            }
        }
        assertEquals(rows.size(), i, "tshark frame count");
        assertTrue(compared > 1000, "stacks compared with tshark: " + compared);
    }

    private static int port(Topology topo, String peer) {
        return topo.ports("s1").stream().filter(p -> p.peer().equals(peer)).findFirst().orElseThrow().port();
    }

    /**
     * A host whose QPs wait about a second (code 18) for an ACK: the engines share the machine's cores with other work,
     * where a responder's ACK can come hundreds of milliseconds late; with the default 67 ms the requesters resent, and
     * their retries could run out.
     */
    private static NamespaceHost host(Topology topo, NetworkBuilder.Network network, String name, String ip, int size,
                                      long seed, RateControl.Factory rate) throws Exception {
        return new NamespaceHost(name, network.namespace(name), topo.hosts().get(name).mac(), ip, size, seed, rate)
                .ackTimeout(18);
    }

    private static void fill(MemoryRegion mr, int salt) {
        MemorySegment s = mr.segment();
        for (long i = 0; i < s.byteSize(); i++) s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * salt + salt));
    }
}
