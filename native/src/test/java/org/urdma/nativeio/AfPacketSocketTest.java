package org.urdma.nativeio;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.*;
import static org.urdma.nativeio.TestFrames.*;

/** Two namespaces joined by a veth pair (MTU 1500): A sends, B receives. */
@Tag("root")
class AfPacketSocketTest {
    static final int MTU = 1500;
    static Topology topo;
    static String nsA, nsB;
    static byte[] macA, macB;

    @BeforeAll
    static void setUp() {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        nsA = topo.namespace("a");
        nsB = topo.namespace("b");
        topo.veth(nsA, "va", nsB, "vb", Topology.LinkOptions.mtu(MTU).withMacs("02:00:00:00:0a:01", "02:00:00:00:0b:01"));
        macA = in(nsA, () -> NetInterface.lookup("va").mac());
        macB = in(nsB, () -> NetInterface.lookup("vb").mac());
    }

    @AfterAll
    static void tearDown() {
        if (topo != null) {
            topo.close();
        }
    }

    static <T> T in(String ns, Supplier<T> s) {
        try {
            return Netns.call(ns, s::get);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static AfPacketSocket open(String ns, String ifname, AfPacketOptions o) {
        return in(ns, () -> AfPacketSocket.open(ifname, o));
    }

    /** Receives until {@code n} test frames arrived or 5 s passed; returns them as arrays. */
    static List<byte[]> receiveTestFrames(AfPacketSocket rx, int n, List<int[]> vlanInfo) {
        List<byte[]> got = new ArrayList<>();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (got.size() < n && System.nanoTime() < deadline) {
            rx.pollIn(20);
            rx.receive(f -> {
                if (f.etherType() == ETHERTYPE) {
                    got.add(f.toArray());
                    assertTrue(f.timestampNanos() > 0, "kernel timestamp");
                    assertFalse(f.truncated());
                    if (vlanInfo != null) {
                        vlanInfo.add(new int[] {f.vlanValid() ? 1 : 0, f.vlanTci(), f.vlanTagInData() ? 1 : 0, f.effectiveTci()});
                    }
                }
            });
        }
        return got;
    }

    @Test
    void txRingBatchArrivesByteForByteInOrderOnV3RxRing() {
        int n = 600;
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().protocol(ETHERTYPE).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().txRing(2048, 1024))) {
            assertEquals(MTU + 14 + 4, tx.txMaxFrameLength());
            for (int seq = 0; seq < n; seq++) {
                int slot = tx.txAcquire();
                assertTrue(slot >= 0, "TX ring has room for the whole batch");
                int len = seq < 2 ? (seq == 0 ? 60 : MTU + 14) : sizeFor(seq, 60, MTU + 14);
                write(tx.txBuffer(), tx.txDataOffset(slot), macB, macA, seq, len);
                tx.txCommit(slot, len);
            }
            assertEquals(n, tx.txUnflushed());
            assertTrue(tx.flush(true) >= 0);
            List<byte[]> got = receiveTestFrames(rx, n, null);
            assertEquals(n, got.size(), "frames received");
            for (int seq = 0; seq < n; seq++) {
                int len = seq < 2 ? (seq == 0 ? 60 : MTU + 14) : sizeFor(seq, 60, MTU + 14);
                assertArrayEquals(expected(macB, macA, seq, len), got.get(seq), "frame " + seq);
            }
            PacketStatistics st = rx.statistics();
            assertTrue(st.packets() >= n, "kernel counted " + st);
            assertEquals(0, st.drops(), "drops " + st);
            assertTrue(tx.txIdle(), "kernel released every TX slot");
        }
    }

    @Test
    void copySendsAndRingFramesLeaveInCommitOrderAcrossMixedBatchesAndWraps() {
        // 8 ring slots, 64 copy slots: frames up to 200 bytes go by sendmmsg, longer ones from the ring, batches of
        // 1-5 frames mix both and wrap round both; the receiver must see every frame, byte for byte, in order.
        // The receiver reads only afterwards, so its ring is V2 with a slot for each frame (a V3 ring retires a
        // block per millisecond and fills before this slow, byte-by-byte writing loop ends)
        int n = 400;
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().version(AfPacketOptions.Version.V2)
                     .protocol(ETHERTYPE).rxRing(1 << 16, 16, 2048, 0).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().txRing(2048, 8)
                     .copySendMax(200))) {
            int batch = 0;
            int copies = 0;
            for (int seq = 0; seq < n; seq++) {
                int len = lengthOf(seq);
                int slot;
                while ((slot = tx.txAcquire(len)) < 0) {
                    assertTrue(tx.flush() >= 0);
                }
                if (slot >= 8) {
                    copies++;
                }
                write(slotView(tx, slot, len), 0, macB, macA, seq, len);
                tx.txCommit(slot, len);
                if (++batch == 1 + seq % 5) {
                    assertTrue(tx.flush() >= 0);
                    batch = 0;
                }
            }
            while (!tx.txIdle()) {
                assertTrue(tx.flush(true) >= 0);
            }
            assertTrue(copies > n / 2 && copies < n, "both paths used: " + copies + " copies of " + n);
            List<byte[]> got = receiveTestFrames(rx, n, null);
            assertEquals(n, got.size(), "frames received");
            for (int seq = 0; seq < n; seq++) {
                assertArrayEquals(expected(macB, macA, seq, lengthOf(seq)), got.get(seq), "frame " + seq);
            }
        }
    }

    @SuppressWarnings("restricted")
    private static MemorySegment slotView(AfPacketSocket tx, int slot, int len) {
        return MemorySegment.ofAddress(tx.txDataAddress(slot)).reinterpret(len);
    }

    private static int lengthOf(int seq) {
        return seq % 7 == 3 ? 1000 + seq : 60 + seq % 140;
    }

    @Test
    void copySlotsHoldABatchUntilTheFlushAndAreFreeRightAfterIt() {
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().protocol(ETHERTYPE).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().txRing(2048, 4)
                     .copySendMax(2048))) {
            for (int i = 0; i < 64; i++) {
                int slot = tx.txAcquire(100);
                assertEquals(4 + i, slot, "copy slots follow the 4 ring slots");
                write(slotView(tx, slot, 100), 0, macB, macA, i, 100);
                tx.txCommit(slot, 100);
            }
            assertEquals(-1, tx.txAcquire(100), "64 copies wait for the flush");
            assertThrows(IllegalArgumentException.class, () -> tx.txCommit(4, 100));
            assertFalse(tx.txIdle());
            assertEquals(6400, tx.flush());
            assertTrue(tx.txIdle(), "sendmmsg copied them: nothing stays with the kernel");
            assertEquals(4, tx.txAcquire(100));
            assertEquals(64, receiveTestFrames(rx, 64, null).size());
        }
    }

    @Test
    void fullTxRingRefusesSlotsUntilFlushed() {
        try (AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().txRing(2048, 8))) {
            for (int i = 0; i < 8; i++) {
                int slot = tx.txAcquire();
                assertEquals(i, slot);
                write(tx.txBuffer(), tx.txDataOffset(slot), macB, macA, i, 64);
                tx.txCommit(slot, 64);
            }
            assertEquals(-1, tx.txAcquire(), "all 8 slots are owned by the kernel");
            assertThrows(IllegalArgumentException.class, () -> tx.txCommit(0, 64 * 1024));
            tx.flush(true);
            assertEquals(0, tx.txAcquire(), "slots return after sending");
        }
    }

    @Test
    void plainSendPathAndV2RxRing() {
        try (Arena arena = Arena.ofConfined();
             AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().version(AfPacketOptions.Version.V2)
                     .rxRing(1 << 16, 8, 2048, 0).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().noTxRing())) {
            MemorySegment buf = arena.allocate(2048);
            int n = 50;
            for (int seq = 0; seq < n; seq++) {
                int len = sizeFor(seq, 60, MTU + 14);
                write(buf, 0, macB, macA, seq, len);
                assertEquals(len, tx.send(buf, len));
            }
            List<byte[]> got = receiveTestFrames(rx, n, null);
            assertEquals(n, got.size());
            for (int seq = 0; seq < n; seq++) {
                assertArrayEquals(expected(macB, macA, seq, sizeFor(seq, 60, MTU + 14)), got.get(seq));
            }
        }
    }

    @Test
    void aHandlerThatEndsTheBurstGetsOneFrameAndTheRestWaitsForTheNextReceive() throws Exception {
        try (Arena arena = Arena.ofConfined();
             AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().version(AfPacketOptions.Version.V2)
                     .rxRing(1 << 16, 8, 2048, 0).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().noTxRing())) {
            MemorySegment buf = arena.allocate(2048);
            for (int seq = 0; seq < 3; seq++) {
                write(buf, 0, macB, macA, seq, 60);
                assertEquals(60, tx.send(buf, 60));
            }
            Thread.sleep(50); // veth delivers at once; this only keeps a slow machine from splitting the batch
            List<byte[]> got = new ArrayList<>();
            int first = rx.receive(f -> {
                got.add(f.toArray());
                if (f.etherType() == ETHERTYPE) rx.endBurst();
            });
            int testFrames = (int) got.stream().filter(b -> ((b[12] & 0xFF) << 8 | (b[13] & 0xFF)) == ETHERTYPE).count();
            assertEquals(1, testFrames, "the burst ends after the first test frame");
            assertEquals(got.size(), first);
            assertArrayEquals(expected(macB, macA, 0, 60), got.get(got.size() - 1));
            List<byte[]> rest = receiveTestFrames(rx, 2, null);
            assertEquals(2, rest.size(), "the frames behind it wait for the next receive");
            assertArrayEquals(expected(macB, macA, 1, 60), rest.get(0));
        }
    }

    @Test
    void v2TxRingToV2RxRing() {
        AfPacketOptions v2 = AfPacketOptions.defaults().version(AfPacketOptions.Version.V2);
        try (AfPacketSocket rx = open(nsB, "vb", v2.rxRing(1 << 16, 8, 2048, 0).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().version(AfPacketOptions.Version.V2)
                     .protocol(0).noRxRing().txRing(2048, 64))) {
            int n = 100; // more than the TX ring holds: slots must come back
            int sent = 0;
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (sent < n && System.nanoTime() < deadline) {
                int slot = tx.txAcquire();
                if (slot < 0) {
                    tx.flush(true);
                    continue;
                }
                write(tx.txBuffer(), tx.txDataOffset(slot), macB, macA, sent, sizeFor(sent, 60, MTU + 14));
                tx.txCommit(slot, sizeFor(sent, 60, MTU + 14));
                sent++;
            }
            tx.flush(true);
            List<byte[]> got = new ArrayList<>();
            long until = System.nanoTime() + 5_000_000_000L;
            while (got.size() < n && System.nanoTime() < until) {
                rx.pollIn(20);
                rx.receive(f -> {
                    if (f.etherType() == ETHERTYPE) {
                        got.add(f.toArray());
                    }
                });
            }
            assertEquals(n, got.size());
            for (int seq = 0; seq < n; seq++) {
                assertArrayEquals(expected(macB, macA, seq, sizeFor(seq, 60, MTU + 14)), got.get(seq), "frame " + seq);
            }
        }
    }

    @Test
    void copyingReceiveWithoutRxRing() {
        try (Arena arena = Arena.ofConfined();
             AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().protocol(ETHERTYPE).noRxRing().noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing())) {
            MemorySegment buf = arena.allocate(2048);
            assertEquals(-Errno.EAGAIN, rx.receive(buf, 2048));
            write(buf, 0, macB, macA, 7, 100);
            assertEquals(100, tx.send(buf, 100), "send through the TX ring (copy + flush)");
            assertTrue(rx.pollIn(2000));
            MemorySegment in = arena.allocate(2048);
            assertEquals(100, rx.receive(in, 2048));
            assertArrayEquals(expected(macB, macA, 7, 100), in.asSlice(0, 100).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void vlanTagIsReportedInMetadataOrData() {
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing())) {
            int pcp = 5, vid = 100, len = 128;
            int slot = tx.txAcquire();
            MemorySegment ring = tx.txBuffer();
            long off = tx.txDataOffset(slot);
            // untagged test frame shifted by 4 bytes behind an 802.1Q tag
            byte[] plain = expected(macB, macA, 42, len - 4);
            MemorySegment.copy(plain, 0, ring, java.lang.foreign.ValueLayout.JAVA_BYTE, off, 12);
            ring.set(BE_SHORT, off + 12, (short) 0x8100);
            ring.set(BE_SHORT, off + 14, (short) ((pcp << 13) | vid));
            MemorySegment.copy(plain, 12, ring, java.lang.foreign.ValueLayout.JAVA_BYTE, off + 16, plain.length - 12);
            tx.txCommit(slot, len);
            tx.flush(true);
            List<int[]> vlan = new ArrayList<>();
            List<byte[]> got = receiveTestFrames(rx, 1, vlan);
            assertEquals(1, got.size(), "tagged frame received");
            int[] v = vlan.get(0);
            assertEquals((pcp << 13) | vid, v[3], "PCP/VID from metadata (valid=" + v[0] + ") or data (inData=" + v[2] + ")");
            assertTrue(v[0] == 1 ^ v[2] == 1, "the tag is in exactly one place");
            if (v[0] == 1) {
                // Linux stripped the tag: the data is the untagged frame
                assertEquals((pcp << 13) | vid, v[1] & 0xFFFF);
                assertArrayEquals(plain, got.get(0));
            } else {
                assertEquals(len, got.get(0).length);
            }
        }
    }

    @Test
    void closeReleasesDescriptorsAndMappings() {
        AfPacketSocket first = open(nsB, "vb", AfPacketOptions.defaults());
        first.close();
        first.close(); // idempotent
        assertTrue(first.isClosed());
        // warm up lazily created JDK/FFM descriptors before counting
        open(nsB, "vb", AfPacketOptions.defaults()).close();
        int before = openFds();
        long mapsBefore = packetMappings();
        // every 4th cycle with both rings (each ring set-up/tear-down costs the kernel an RCU grace period)
        for (int i = 0; i < 100; i++) {
            AfPacketOptions o = i % 4 == 0 ? AfPacketOptions.defaults().rxRing(1 << 16, 4, 2048, 1).txRing(2048, 64)
                    : AfPacketOptions.defaults().noRxRing().noTxRing();
            try (AfPacketSocket s = open(nsB, "vb", o)) {
                assertTrue(s.fd() >= 0);
                if (i == 0) {
                    assertEquals(mapsBefore + 1, packetMappings(), "ring mapping visible while open");
                }
            }
        }
        assertEquals(mapsBefore, packetMappings(), "ring mappings after 100 open/close cycles");
        assertEquals(before, openFds(), "descriptors after 100 open/close cycles");
    }

    @Test
    void qinqOuterTagInMetadataInnerTagInData() {
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing())) {
            int outer = (3 << 13) | 200, inner = (6 << 13) | 7, len = 128;
            int slot = tx.txAcquire();
            MemorySegment ring = tx.txBuffer();
            long off = tx.txDataOffset(slot);
            byte[] plain = expected(macB, macA, 43, len - 8);
            MemorySegment.copy(plain, 0, ring, java.lang.foreign.ValueLayout.JAVA_BYTE, off, 12);
            ring.set(BE_SHORT, off + 12, (short) 0x88A8);
            ring.set(BE_SHORT, off + 14, (short) outer);
            ring.set(BE_SHORT, off + 16, (short) 0x8100);
            ring.set(BE_SHORT, off + 18, (short) inner);
            MemorySegment.copy(plain, 12, ring, java.lang.foreign.ValueLayout.JAVA_BYTE, off + 20, plain.length - 12);
            tx.txCommit(slot, len);
            tx.flush(true);
            List<int[]> seen = new ArrayList<>();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (seen.isEmpty() && System.nanoTime() < deadline) {
                rx.pollIn(20);
                rx.receive(f -> {
                    if (f.etherType() == ETHERTYPE) {
                        seen.add(new int[] {f.vlanValid() ? f.vlanTci() & 0xFFFF : -1, f.vlanTpid(), f.dataTci(), f.effectiveTci(), f.length()});
                    }
                });
            }
            assertEquals(1, seen.size(), "QinQ frame received");
            int[] v = seen.get(0);
            if (v[0] >= 0) {
                assertEquals(outer, v[0], "outer TCI in metadata");
                assertEquals(0x88A8, v[1], "outer TPID in metadata");
                assertEquals(inner, v[2], "inner TCI still in the data");
                assertEquals(len - 4, v[4]);
            } else {
                assertEquals(outer, v[2], "no offload: outer tag in the data");
            }
            assertEquals(outer, v[3], "effective (outer) TCI");
        }
    }

    @Test
    void jumboSlotsOnAJumboLink() {
        try (Topology t = Topology.create()) {
            String a = t.namespace("ja");
            String b = t.namespace("jb");
            t.veth(a, "j0", b, "j1", Topology.LinkOptions.mtu(9000));
            try (AfPacketSocket rx = open(b, "j1", AfPacketOptions.forMtu(9000).protocol(ETHERTYPE).noTxRing());
                 AfPacketSocket tx = open(a, "j0", AfPacketOptions.forMtu(9000).protocol(0).noRxRing())) {
                byte[] ma = in(a, () -> NetInterface.lookup("j0").mac());
                byte[] mb = in(b, () -> NetInterface.lookup("j1").mac());
                int[] sizes = {60, 4200, 9014, 1514, 8000};
                for (int seq = 0; seq < sizes.length; seq++) {
                    int slot = tx.txAcquire();
                    write(tx.txBuffer(), tx.txDataOffset(slot), mb, ma, seq, sizes[seq]);
                    tx.txCommit(slot, sizes[seq]);
                }
                tx.flush(true);
                List<byte[]> got = receiveTestFrames(rx, sizes.length, null);
                assertEquals(sizes.length, got.size());
                for (int seq = 0; seq < sizes.length; seq++) {
                    assertArrayEquals(expected(mb, ma, seq, sizes[seq]), got.get(seq), "frame " + seq);
                }
            }
        }
    }

    @Test
    void rawBlastDeliversEveryFrame() {
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().protocol(RawBlast.ETHERTYPE).noTxRing());
             AfPacketSocket tx = open(nsA, "va", AfPacketOptions.defaults().protocol(0).noRxRing().txRing(2048, 256))) {
            // Fewer frames than the kernel's per-CPU backlog (netdev_max_backlog, 1000): the receiver drains only
            // after the blast, and a veth hands every frame to that backlog, so more could be dropped on a busy host.
            int frames = 800;
            RawBlast.TxResult tr = RawBlast.blast(tx, macB, macA, frames, 256);
            RawBlast.RxResult rr = RawBlast.count(rx, frames, new java.util.concurrent.atomic.AtomicBoolean(true), 2000);
            assertEquals(frames, tr.frames());
            assertEquals(frames, rr.frames(), "received " + rr);
            assertEquals(frames * 256L, rr.bytes());
        }
    }

    /** Lines of /proc/self/maps backed by a socket (packet rings show up as "socket:[inode]"). */
    static long packetMappings() {
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("socket:[")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void unknownInterfaceIsNamedInTheError() {
        NativeException e = assertThrows(NativeException.class,
                () -> open(nsA, "nope0", AfPacketOptions.defaults()));
        assertTrue(e.getMessage().contains("'nope0'"), e.getMessage());
    }

    @Test
    void optionsAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> AfPacketOptions.defaults().rxRing(1000, 4, 2048, 1));
        assertThrows(IllegalArgumentException.class, () -> AfPacketOptions.defaults().txRing(100, 4));
        assertThrows(IllegalArgumentException.class, () -> AfPacketOptions.defaults().protocol(0x10000));
        AfPacketOptions o = AfPacketOptions.forMtu(9000);
        assertTrue(o.txFrameSize >= 48 + 9018);
        assertEquals(4096, AfPacketSocket.txBlockSizeFor(2048));
        int jumboBlock = AfPacketSocket.txBlockSizeFor(o.txFrameSize);
        assertEquals(0, jumboBlock & (jumboBlock - 1), "power of two");
        assertTrue(jumboBlock % o.txFrameSize <= jumboBlock / 8, "little slack: " + jumboBlock);
    }

    @Test
    void promiscuousQdiscBypassAndStatisticsOptionsWork() {
        try (AfPacketSocket rx = open(nsB, "vb", AfPacketOptions.defaults().promiscuous(true).qdiscBypass(true).noTxRing())) {
            // SIOCGIFFLAGS shows only user-set IFF_PROMISC; the promiscuity counter shows socket memberships
            assertTrue(topo.ip(nsB, "-d", "link", "show", "vb").contains("promiscuity 1"));
            assertEquals(new PacketStatistics(0, 0, 0).drops(), rx.statistics().drops());
        }
        assertTrue(topo.ip(nsB, "-d", "link", "show", "vb").contains("promiscuity 0"), "membership ends with the socket");
    }
}
