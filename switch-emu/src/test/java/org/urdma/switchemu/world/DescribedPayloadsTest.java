package org.urdma.switchemu.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * A world whose frames describe their payloads runs the protocol exactly as one whose frames carry the bytes: the same
 * workload (WRITE, READ and SEND through a switch, with loss) sends the same frames at the same times with the same
 * opcodes and PSNs, completes the same messages, ends with the same counters, and verifies its memory by pattern, while
 * its data frames are a few dozen bytes instead of kilobytes.
 */
class DescribedPayloadsTest {
    private static final long RATE = 25_000_000_000L;
    private static final long START = 1_000_000;

    /** What a run did, frame by frame (time, opcode, PSN, destination QP) and in total. */
    private record Run(List<String> framesSentByA, List<String> framesReceivedByA, List<FlowResult> results,
                       List<String> counters, long events, long switchTxBytes, long endNs, int biggestFrameSent) {
    }

    private static Run run(boolean described) throws IOException {
        SwitchConfig sc = new SwitchConfig().bufferBytes(4_000_000);
        sc.port(new PortConfig().rateBps(RATE));
        sc.port(new PortConfig().rateBps(RATE));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        List<FlowResult> results = new ArrayList<>();
        List<String> counters = new ArrayList<>();
        long events;
        long switchTx;
        long end;
        try (World w = new World(7, START)) {
            if (described) w.describePayloads();
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost a = w.addDevice(DeviceConfig.named("a", 1), 4096, 0);
            DeviceHost b = w.addDevice(DeviceConfig.named("b", 2), 4096, 0);
            w.connect(a, s, 0, RATE, 1_000, null, null);
            w.connect(b, s, 1, RATE, 1_000, null, ImpairmentConfig.none().lossRandom(0.01, 0));
            w.capture(a, sent, received);
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withTimeout(10).withMtu(PathMtu.MTU_4096);
            List<MessageWorkload> ws = new ArrayList<>();
            for (MessageWorkload.Op op : MessageWorkload.Op.values()) {
                MessageWorkload m = new MessageWorkload(w, op.name().toLowerCase(), a, b, op, QpType.RC, 64 * 1024 + 100,
                        4, 24, Long.MAX_VALUE, LossRecovery.goBackN(), RateControl.none(), c, 40 + op.ordinal());
                w.add(a, m, START + 10_000 * op.ordinal());
                ws.add(m);
            }
            assertTrue(w.runUntilFinished(START + 2_000_000_000L), "every workload finished by 2 s");
            for (MessageWorkload m : ws) {
                results.add(m.result());
                SoftQp qp = (SoftQp) m.qp();
                StringBuilder sb = new StringBuilder(m.result().name());
                for (Counter k : Counter.values()) sb.append(' ').append(k).append('=').append(qp.counters().get(k));
                counters.add(sb.toString());
            }
            events = w.events();
            switchTx = s.core().counters(0).txBytes + s.core().counters(1).txBytes;
            end = w.now();
        }
        List<String> tx = new ArrayList<>();
        int biggest = frames(sent.toByteArray(), tx);
        List<String> rx = new ArrayList<>();
        frames(received.toByteArray(), rx);
        return new Run(tx, rx, results, counters, events, switchTx, end, biggest);
    }

    /** Time, opcode, PSN and destination QP of each RoCEv2 frame in a capture; returns the biggest frame. */
    static int frames(byte[] pcap, List<String> out) throws IOException {
        int biggest = 0;
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(pcap))) {
            while (r.next()) {
                var b = r.buffer();
                int bth = 14 + 20 + 8;
                int op = b.getByte(bth) & 0xFF;
                int qp = (b.getInt(bth + 4, java.nio.ByteOrder.BIG_ENDIAN)) & 0xFF_FFFF;
                int psn = (b.getInt(bth + 8, java.nio.ByteOrder.BIG_ENDIAN)) & 0xFF_FFFF;
                out.add(r.timestampNanos() + " op=" + op + " qp=" + qp + " psn=" + psn);
                biggest = Math.max(biggest, r.capturedLength());
            }
        }
        return biggest;
    }

    @Test
    void describedAndByteFramesGiveTheSameProtocolRun() throws IOException {
        Run bytes = run(false);
        Run described = run(true);
        assertTrue(bytes.framesSentByA.size() > 500, "a real workload: " + bytes.framesSentByA.size() + " frames");
        assertTrue(bytes.results.stream().mapToLong(FlowResult::retransmitted).sum() > 0, "loss made retransmissions");
        assertEquals(bytes.framesSentByA, described.framesSentByA, "frames a sent: times, opcodes, PSNs");
        assertEquals(bytes.framesReceivedByA, described.framesReceivedByA, "frames a received");
        assertEquals(bytes.results, described.results, "messages, bytes, times, retransmissions, memory verified");
        assertEquals(bytes.counters, described.counters, "per-QP counters");
        assertEquals(bytes.events, described.events);
        assertEquals(bytes.switchTxBytes, described.switchTxBytes, "the switch sent the same wire bytes");
        assertEquals(bytes.endNs, described.endNs);
        for (FlowResult r : described.results) assertEquals(Boolean.TRUE, r.memoryVerified(), r.name());
        assertTrue(bytes.biggestFrameSent > 4096, "byte frames carry 4 KiB payloads: " + bytes.biggestFrameSent);
        assertTrue(described.biggestFrameSent < 200, "described frames are headers and a description: "
                + described.biggestFrameSent);
    }
}
