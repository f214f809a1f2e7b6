package org.urdma.nativeio;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.*;
import static org.urdma.nativeio.TestFrames.*;

@Tag("root")
class TapDeviceTest {

    @Test
    void twoTapsOnABridgeExchangeFrames() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create(); Arena arena = Arena.ofConfined()) {
            String ns = t.namespace("tap");
            t.bridge(ns, "br0");
            TapDevice[] taps = t.call(ns, () -> new TapDevice[] {TapDevice.open("tapa"), TapDevice.open("tapb")});
            try (TapDevice a = taps[0]; TapDevice b = taps[1]) {
                assertEquals("tapa", a.name());
                for (TapDevice d : taps) {
                    t.attach(ns, d.name(), "br0");
                    t.up(ns, d.name());
                }
                byte[] src = {2, 0, 0, 0, 0x7a, 1};
                byte[] dst = {2, 0, 0, 0, 0x7b, 1}; // unknown to the bridge: flooded to tapb
                MemorySegment out = arena.allocate(2048);
                MemorySegment in = arena.allocate(2048);
                for (int seq = 0; seq < 20; seq++) {
                    int len = sizeFor(seq, 60, 1514);
                    write(out, 0, dst, src, seq, len);
                    assertEquals(len, a.write(out, 0, len));
                    byte[] got = readTestFrame(b, in);
                    assertNotNull(got, "frame " + seq + " arrived on tapb");
                    assertArrayEquals(expected(dst, src, seq, len), got);
                }
                assertEquals(-Errno.EAGAIN, drainOthers(b, in), "non-blocking read reports EAGAIN when empty");
            }
            t.run(ns, () -> assertFalse(NetInterface.exists("tapa"), "non-persistent TAP disappears on close"));
        }
    }

    /** Reads frames until one with the test EtherType (skipping IPv6 noise) or 2 s pass. */
    private static byte[] readTestFrame(TapDevice d, MemorySegment buf) {
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < deadline) {
            int n = d.read(buf, 0, 2048);
            if (n == -Errno.EAGAIN) {
                d.pollIn(50);
                continue;
            }
            assertTrue(n > 0, "read returned " + n);
            if (n >= 14 && Short.toUnsignedInt(buf.get(BE_SHORT, 12)) == ETHERTYPE) {
                return buf.asSlice(0, n).toArray(JAVA_BYTE);
            }
        }
        return null;
    }

    private static int drainOthers(TapDevice d, MemorySegment buf) {
        int n;
        do {
            n = d.read(buf, 0, 2048);
            assertFalse(n > 0 && Short.toUnsignedInt(buf.get(BE_SHORT, 12)) == ETHERTYPE, "no extra test frames");
        } while (n > 0);
        return n;
    }

    @Test
    void aPersistentTapCreatedByIpStaysOnItsBridgeAfterClose() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create(); Arena arena = Arena.ofConfined()) {
            String ns = t.namespace("tap");
            t.bridge(ns, "br0");
            t.ip(ns, "tuntap", "add", "tapp", "mode", "tap");
            t.attach(ns, "tapp", "br0");
            t.up(ns, "tapp");
            TapDevice b = t.call(ns, () -> TapDevice.open("tapb"));
            try (b) {
                assertTrue(b.created(), "tapb is new");
                t.attach(ns, "tapb", "br0");
                t.up(ns, "tapb");
                for (int round = 0; round < 2; round++) {
                    TapDevice p = t.call(ns, () -> TapDevice.open("tapp"));
                    try (p) {
                        assertFalse(p.created(), "tapp existed before");
                        // the carrier comes on with the descriptor; the bridge hears of it via linkwatch, later
                        awaitForwarding(t, ns, "tapp");
                        // still a port of br0 on the second round: frames reach tapb
                        byte[] src = {2, 0, 0, 0, 0x7c, 1};
                        byte[] dst = {2, 0, 0, 0, 0x7d, 1};
                        MemorySegment out = arena.allocate(2048);
                        MemorySegment in = arena.allocate(2048);
                        write(out, 0, dst, src, round, 100);
                        assertEquals(100, p.write(out, 0, 100));
                        assertArrayEquals(expected(dst, src, round, 100), readTestFrame(b, in), "round " + round);
                    }
                    t.run(ns, () -> assertTrue(NetInterface.exists("tapp"), "persistent TAP survives close"));
                    String link = t.ip(ns, "-d", "link", "show", "tapp");
                    assertTrue(link.contains("master br0"), link);
                    assertTrue(link.contains("persist"), link);
                }
            }
            t.run(ns, () -> assertFalse(NetInterface.exists("tapb"), "the TAP open() created disappears on close"));
        }
    }

    /** Waits (up to 5 s) until the bridge forwards on {@code port} (brport/state 3 = forwarding). */
    private static void awaitForwarding(Topology t, String ns, String port) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        String state = "";
        while (System.nanoTime() < deadline) {
            state = t.exec(ns, "cat", "/sys/class/net/" + port + "/brport/state").strip();
            if (state.equals("3")) {
                return;
            }
            Thread.sleep(20);
        }
        fail("bridge port " + port + " not forwarding after 5 s (state " + state + ")");
    }

    @Test
    void kernelChoosesANameWhenNoneIsGiven() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String ns = t.namespace("tap");
            t.run(ns, () -> {
                try (TapDevice d = TapDevice.open(null)) {
                    assertTrue(d.name().startsWith("tap"), d.name());
                    NetInterface nif = NetInterface.lookup(d.name());
                    assertEquals(6, nif.mac().length);
                    NetInterface.setUp(d.name(), true);
                    assertTrue(NetInterface.lookup(d.name()).isUp());
                }
            });
        }
    }

    @Test
    void reopeningAfterCloseDoesNotLeakDescriptors() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String ns = t.namespace("tap");
            t.run(ns, () -> {
                TapDevice.open("tapz").close();
                int before = openFds();
                for (int i = 0; i < 100; i++) {
                    try (TapDevice d = TapDevice.open("tapz")) {
                        assertFalse(d.isClosed());
                    }
                }
                assertEquals(before, openFds());
            });
        }
    }
}
