package org.urdma.switchemu.rt;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Paced senders on several test hosts, driven by one thread (the machine may have two cores). With
 * {@code honourPfc} a sender stops its priority while a PFC frame from the switch says so (for the
 * pause time in quanta of its link rate; 0 resumes), like a NIC. Every MAC control frame a sender's
 * host receives is recorded as (class-enable vector, quanta of the sender's priority).
 */
final class PfcSender {
    record Seen(int classEnable, int quanta) {
    }

    static final class Stream {
        final TestHost host;
        final long dst;
        final int pcp;
        final int size;
        final int count;
        final long intervalNs;
        int sent;
        long nextAt;
        long pausedUntil = Long.MIN_VALUE;
        final List<Seen> pfcSeen = new ArrayList<>();

        Stream(TestHost host, long dst, int pcp, int size, int count, double framesPerSecond) {
            this.host = host;
            this.dst = dst;
            this.pcp = pcp;
            this.size = size;
            this.count = count;
            this.intervalNs = (long) (1e9 / framesPerSecond);
        }
    }

    private PfcSender() {
    }

    /** Sends every stream's frames; returns when all are sent or {@code timeoutMs} passed. */
    static void run(List<Stream> streams, boolean honourPfc, long linkRateBps, long timeoutMs) {
        long start = System.nanoTime();
        for (Stream s : streams) {
            s.nextAt = start;
        }
        long end = start + timeoutMs * 1_000_000L;
        boolean done = false;
        while (!done && System.nanoTime() < end) {
            done = true;
            long now = System.nanoTime();
            for (Stream s : streams) {
                s.host.receive(f -> {
                    if (TestHost.isMacControl(f) && ((f[14] & 0xFF) << 8 | (f[15] & 0xFF)) == 0x0101) {
                        ByteBuffer b = ByteBuffer.wrap(f);
                        int enable = b.getShort(16) & 0xFF;
                        int quanta = b.getShort(18 + 2 * s.pcp) & 0xFFFF;
                        s.pfcSeen.add(new Seen(enable, quanta));
                        if (honourPfc && (enable & (1 << s.pcp)) != 0) {
                            long t = System.nanoTime();
                            s.pausedUntil = quanta == 0 ? t : t + quanta * 512L * 1_000_000_000L / linkRateBps;
                        }
                    }
                });
                if (s.sent < s.count) {
                    done = false;
                    if (now >= s.nextAt && now >= s.pausedUntil) {
                        s.host.send(TestHost.frame(s.dst, s.host.mac, s.pcp, s.size, s.sent));
                        s.sent++;
                        s.nextAt = Math.max(s.nextAt + s.intervalNs, now - 10 * s.intervalNs);
                    }
                }
            }
        }
    }
}
