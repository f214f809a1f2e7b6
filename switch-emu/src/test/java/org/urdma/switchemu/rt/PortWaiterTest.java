package org.urdma.switchemu.rt;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PortWaiterTest {
    @Test
    void realtimeClockAgreesWithTheJvmsWallClock() {
        PortWaiter w = new PortWaiter(new int[0]);
        long jvm = System.currentTimeMillis() * 1_000_000L;
        long real = w.realtimeNanos();
        assertTrue(Math.abs(real - jvm) < 1_000_000_000L, "CLOCK_REALTIME " + real + " vs JVM " + jvm);
    }

    @Tag("root")
    @Test
    void aFrameArrivingEndsTheSleepBeforeItsTimeout() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String a = t.namespace("pwa");
            String b = t.namespace("pwb");
            t.veth(a, "pw0", b, "pw1", Topology.LinkOptions.mtu(1500));
            AfPacketOptions o = AfPacketOptions.forMtu(1500).protocol(0x88B5).rxRing(1 << 16, 4, 2048, 1).noTxRing();
            try (AfPacketSocket rx = Netns.call(b, () -> AfPacketSocket.open("pw1", o));
                 AfPacketSocket tx = Netns.call(a, () -> AfPacketSocket.open("pw0", o))) {
                PortWaiter w = new PortWaiter(new int[]{-1, rx.fd()});
                assertTrue(w.hasDescriptors());
                w.await(20_000_000); // nothing arrives: ends by timeout
                assertEquals(1, w.timedOutWakeups());
                Thread sender = Thread.ofPlatform().start(() -> {
                    try (Arena arena = Arena.ofConfined()) {
                        Thread.sleep(50);
                        MemorySegment f = arena.allocate(60);
                        f.fill((byte) -1);
                        f.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 12, (byte) 0x88);
                        f.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 13, (byte) 0xB5);
                        tx.send(f, 60);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                long t0 = System.nanoTime();
                w.await(30_000_000_000L);
                long waited = System.nanoTime() - t0;
                sender.join();
                assertEquals(1, w.readableWakeups(), "woken by the frame, waited " + waited / 1e6 + " ms");
                assertTrue(waited < 20_000_000_000L, "waited " + waited / 1e6 + " ms of a 30 s timeout");
            }
        }
    }
}
