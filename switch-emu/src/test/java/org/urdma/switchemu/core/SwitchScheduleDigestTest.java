package org.urdma.switchemu.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.switchemu.sim.Frames;
import org.urdma.transport.wire.MacControlFrame;

/**
 * A poll serves only the ports that have work and counts what it skips, so it must send what a poll of every port
 * sent: the same frames, on the same ports, at the same times, with the same counters. The digests were taken from
 * the switch core that scanned every port at every poll; the traffic mixes strict and weighted priorities, PFC both
 * ways (peers pausing the switch, the switch pausing its peers), ECN marking and the PFC watchdog, with polls at
 * arrivals, at the core's deadlines and at random times.
 */
class SwitchScheduleDigestTest {
    private static final int PORTS = 6;
    private static final long RATE = 10_000_000_000L;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "STORE_AND_FORWARD, d1b47b5718ea68b4486c8c41a99cc45705a4c88d0cda9904c01425d0de47372f",
        "CUT_THROUGH, 03bd753afcc1833b07d8b3eee998a08e8cc01db871eff141264de5544700b092"})
    void sendsWhatAPollOfEveryPortSent(ForwardingMode mode, String digest) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        SwitchConfig c = new SwitchConfig().bufferBytes(400_000).dtAlpha(0.5).maxFrameBytes(1518).forwarding(mode)
                .pipelineDelayNs(300).watchdog(200_000, 400_000, WatchdogAction.DROP);
        for (int i = 0; i < PORTS; i++) {
            c.port(new PortConfig().mac(0x02_00_00_00_F0_00L + i).rateBps(i == 0 ? RATE * 4 : RATE).strictMask(0x80)
                    .weight(0, 1).weight(1, 2).weight(3, 5).pfcMask(0x08).ecn(0x0B, 20_000, 80_000, 0.2));
        }
        ByteBuffer record = ByteBuffer.allocate(32);
        long[] sent = new long[1];
        SwitchCore core = new SwitchCore(c, (int port, DirectBuffer b, int off, int len, long start, long end) -> {
            record.clear().putInt(port).putLong(start).putLong(end).putInt(len);
            sha.update(record.array(), 0, record.position());
            byte[] f = new byte[len];
            b.getBytes(off, f);
            sha.update(f);
            sent[0]++;
        }, new SplittableRandom(7));
        for (int i = 0; i < PORTS; i++) {
            core.addStaticMac(host(i), i);
        }
        SplittableRandom r = new SplittableRandom(42);
        int[] priorities = {0, 1, 3, 3, 3, 7};
        long now = 0;
        long due = core.poll(now);
        for (int n = 0; n < 40_000; n++) {
            int kind = r.nextInt(200);
            // frames at the same instant make weighted queues ready together, so the DWRR pointer shows
            long gap = kind == 0 ? r.nextLong(60_000) : kind < 60 ? 0 : r.nextLong(160);
            long arrival = now + gap;
            while (due <= arrival) {
                now = due;
                due = core.poll(now);
            }
            now = arrival;
            int in = r.nextInt(PORTS);
            if (r.nextInt(40) == 0) {
                int peer = r.nextBoolean() ? 2 : in; // port 2's peer pauses it for long: its queue stalls into storms
                int[] quanta = new int[8];
                quanta[3] = r.nextInt(4) == 0 ? 0 : r.nextInt(peer == 2 ? 20_000 : 2000);
                byte[] f = new byte[60];
                MacControlFrame.putPfc(new UnsafeBuffer(f), 0, host(peer), 0x08, quanta);
                core.onFrame(peer, new UnsafeBuffer(f), 0, f.length, now);
            } else if (r.nextInt(8) == 0) {
                // one frame of each weighted priority from three ports to a quiet port at once: they are ready together,
                // so which goes first follows the DWRR pointer, and with it every pick the port skipped while empty
                int out = 2 + r.nextInt(PORTS - 2);
                for (int k = 0; k < 3; k++) {
                    send(core, (out + 1 + k) % PORTS, out, k == 2 ? 3 : k, 64 + r.nextInt(1400), now);
                }
            } else {
                int out = r.nextBoolean() && in != 1 ? 1 : (in + 1 + r.nextInt(PORTS - 1)) % PORTS; // port 1 is a hot spot
                send(core, in, out, priorities[r.nextInt(priorities.length)], 64 + r.nextInt(1400), now);
            }
            due = core.poll(now);
            if (r.nextInt(5) == 0) {
                now += r.nextLong(50); // a poll at a time nobody asked for, as other events of a shared clock make
                due = core.poll(now);
            }
        }
        while (due != Long.MAX_VALUE && due < now + 100_000_000L) {
            now = due;
            due = core.poll(now);
        }
        long pfc = 0;
        long storms = 0;
        long marked = 0;
        for (int i = 0; i < PORTS; i++) {
            PortCounters pc = core.counters(i);
            pfc += pc.pfcFramesTx;
            storms += pc.watchdogStorms[3];
            marked += pc.ecnMarked;
            record.clear().putLong(pc.txFrames).putLong(pc.pfcFramesTx).putLong(pc.ecnMarked).putLong(pc.rxFrames);
            sha.update(record.array());
            for (long d : pc.drops) {
                sha.update(ByteBuffer.allocate(8).putLong(d).array());
            }
            for (int p = 0; p < 8; p++) {
                sha.update(ByteBuffer.allocate(16).putLong(pc.watchdogStorms[p]).putLong(pc.queueHighWater[p]).array());
            }
        }
        assertTrue(sent[0] > 20_000 && pfc > 0 && storms > 0 && marked > 0,
                "sent " + sent[0] + ", PFC " + pfc + ", storms " + storms + ", marked " + marked);
        assertEquals(digest, HexFormat.of().formatHex(sha.digest()));
    }

    private static void send(SwitchCore core, int in, int out, int priority, int length, long now) {
        byte[] f = Frames.ipv4Udp(host(out), host(in), priority, 0, 2, length);
        core.onFrame(in, new UnsafeBuffer(f), 0, f.length, now);
    }

    private static long host(int i) {
        return 0x02_00_00_00_00_10L + i;
    }
}
