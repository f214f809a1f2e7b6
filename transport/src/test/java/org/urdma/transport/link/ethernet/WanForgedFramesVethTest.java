package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.ForgedWanFrames;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WrOpcode;

/**
 * A WAN-mode RC pair (timestamps, per-packet RETH, SACK, FEC) on AF_PACKET links in two namespaces writes a known
 * pattern into a region with guard bytes on both sides while raw sockets in the same namespaces forge frames with the
 * peers' addresses and QPNs: requests ahead of the expected PSN with a bad R_Key or without their per-packet RETH,
 * requests beyond the 32 Ki-PSN window, parity for groups outside it and parity that sets groups of one followed by
 * far-ahead PSNs, duplicates behind the expected PSN, and towards the requester stale SACKs and READ responses no one
 * asked for. None needs a key: the transfer completes, the region holds the pattern, the guards are untouched, and
 * each class is counted by its reason.
 */
@Tag("root")
class WanForgedFramesVethTest {
    static final int WAN = ForgedWanFrames.WAN;
    static final int CHUNK = 16 * 1024;
    static final int CHUNKS = 64;
    static final int GUARD = 65536;
    static final int BAD_RKEY = 0x0BAD0BAD;
    static final int WINDOW = 1 << 15;
    /** Forged PSNs ahead start past every PSN the transfer itself uses (64 WRITEs of at most 32 packets each). */
    static final int CLEAR = 4096;
    static final byte GUARD_BYTE = 0x5A;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** Frames of one sender, encoded by the transport's RoCEv2 framing and sent on a raw socket in its namespace. */
    static final class Injector implements AutoCloseable {
        private final AfPacketSocket socket;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment frame = arena.allocate(4096, 64);
        private final UnsafeBuffer buffer = new UnsafeBuffer(frame.address(), (int) frame.byteSize());
        private final Framing framing = Framings.of(FramingKind.ROCE2);
        private final Port from;
        private final Port to;

        Injector(String ns, Port from, Port to) throws Exception {
            this.socket = Netns.call(ns, () -> AfPacketSocket.open("eth0"));
            this.from = from;
            this.to = to;
        }

        /** A packet from {@code from}'s MAC, IPv4 address and GID to {@code to}'s; set the rest. */
        Packet packet() {
            Packet p = new Packet();
            p.srcMac = mac(from.datapath.config().port().mac());
            p.dstMac = mac(to.datapath.config().port().mac());
            Gid s = from.datapath.gids().gidFor(FramingKind.ROCE2);
            Gid d = to.datapath.gids().gidFor(FramingKind.ROCE2);
            p.ipSrc = GidTable.ipv4Of(s);
            p.ipDst = GidTable.ipv4Of(d);
            p.sgidHi = ByteBuffer.wrap(s.toBytes()).getLong(0);
            p.sgidLo = ByteBuffer.wrap(s.toBytes()).getLong(8);
            p.dgidHi = ByteBuffer.wrap(d.toBytes()).getLong(0);
            p.dgidLo = ByteBuffer.wrap(d.toBytes()).getLong(8);
            p.hopLimit = 64;
            p.ttl = 64;
            p.pkey = 0xFFFF;
            return p;
        }

        /** Encodes and sends {@code p}, retrying while the device is busy. */
        void send(Packet p) {
            p.dstQpid = p.destQp & 0xFFFF;
            int len = framing.encode(p, buffer, 0);
            long end = System.nanoTime() + 1_000_000_000L;
            long rc;
            while ((rc = socket.send(frame, len)) < 0) {
                if (System.nanoTime() - end > 0) throw new AssertionError("raw send failed: " + rc);
                Thread.onSpinWait();
            }
            assertEquals(len, rc, "raw send");
        }

        @Override
        public void close() {
            try {
                socket.close();
            } finally {
                arena.close();
            }
        }

        private static long mac(byte[] m) {
            long v = 0;
            for (byte b : m) v = (v << 8) | (b & 0xFF);
            return v;
        }
    }

    @Test
    void everyForgedFrameClassIsCountedByReasonWhileAVerifiedWanTransferCompletesBetweenNamespaces() throws Exception {
        try (AfPacketLinkVethTest.Veth v = new AfPacketLinkVethTest.Veth(FramingKind.ROCE2, 1500, AfPacketOptions.Version.V2, c -> c, QpType.RC);
             Arena arena = Arena.ofShared()) {
            ((SoftQp) v.a.qp).wan(WAN, 0, 0);
            ((SoftQp) v.b.qp).wan(WAN, 0, 0);
            v.connect(MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024));
            long region = (long) CHUNK * CHUNKS;
            MemorySegment whole = arena.allocate(region + 2L * GUARD, 4096);
            whole.fill(GUARD_BYTE);
            MemorySegment inside = whole.asSlice(GUARD, region);
            MemoryRegion dst = v.b.pd.registerMemory(inside, AccessFlags.ALL);
            MemorySegment src = v.a.memory().asSlice(0, region);
            SplittableRandom fill = new SplittableRandom(9);
            for (long i = 0; i < region; i += 8) src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, fill.nextLong());

            long aheadAccess = 0, aheadInvalid = 0, beyond = 0, parityOutside = 0, parityOfOne = 0, duplicates = 0;
            long staleSacks = 0, readResponses = 0, forgedReads = 0;
            int start = v.a.psn; // B's first expected PSN and A's first sent one
            SplittableRandom rnd = new SplittableRandom(4);
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
            try (Injector toB = new Injector(v.nsA, v.a, v.b); Injector toA = new Injector(v.nsB, v.b, v.a)) {
                for (int i = 0; i < CHUNKS; i++) {
                    v.a.qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .addSge(v.a.mr, (long) i * CHUNK, CHUNK).remote(dst.address() + (long) i * CHUNK, dst.rkey()));
                    // ahead, inside the window: a guessed R_Key, and the right one without a per-packet RETH
                    toB.send(request(toB, Psn.add(start, rnd.nextInt(CLEAR, WINDOW - CLEAR)), BAD_RKEY, dst.address(), WAN, payload));
                    aheadAccess++;
                    toB.send(request(toB, Psn.add(start, rnd.nextInt(CLEAR, WINDOW - CLEAR)), dst.rkey(), dst.address(),
                            OpcodeTable.UETH_TS, payload));
                    aheadInvalid++;
                    // blind, beyond the window
                    toB.send(request(toB, Psn.add(start, WINDOW + CLEAR + rnd.nextInt(1 << 20)), BAD_RKEY, whole.address(), WAN, payload));
                    beyond++;
                    // parity for a group far outside the window (either side), and parity ahead saying groups of one
                    int far = WINDOW + CLEAR + rnd.nextInt(1 << 20);
                    toB.send(parity(toB, Psn.add(start, rnd.nextBoolean() ? far : -far), 4, payload));
                    parityOutside++;
                    toB.send(parity(toB, Psn.add(start, CLEAR + rnd.nextInt(64)), 1, payload));
                    parityOfOne++;
                    // the decoder's worst case after groups of one: a PSN near the window's far end
                    toB.send(request(toB, Psn.add(start, WINDOW - 1 - rnd.nextInt(16)), BAD_RKEY, dst.address(), WAN, payload));
                    aheadAccess++;
                    // behind the expected PSN: a duplicate, which must not be executed again
                    toB.send(request(toB, Psn.add(start, -1 - rnd.nextInt(1000)), BAD_RKEY, whole.address(), WAN, payload));
                    duplicates++;
                    // to A: a SACK for PSNs long acknowledged, and a READ response A never asked for
                    toA.send(staleSack(toA, Psn.add(start, -1000 - rnd.nextInt(1000))));
                    staleSacks++;
                    toA.send(readResponse(toA, Psn.add(start, -5 - rnd.nextInt(100)), payload));
                    readResponses++;
                    if (i == 0) {
                        // a READ ahead cannot be placed and leaves a gap no one fills: its SACKs back off and stop
                        Packet read = request(toB, Psn.add(start, CLEAR + 100), dst.rkey(), dst.address(), WAN, payload);
                        read.opcode = Opcode.RC_RDMA_READ_REQUEST;
                        read.payloadLength = 0;
                        read.rethDmaLength = 64;
                        toB.send(read);
                        forgedReads++;
                    }
                    AfPacketLinkVethTest.assertOk(v.a.await(10_000), WcOpcode.RDMA_WRITE);
                }
            }
            QpCounters ca = ((SoftQp) v.a.qp).counters();
            QpCounters cb = ((SoftQp) v.b.qp).counters();
            long wantStale = staleSacks + readResponses, wantAhead = aheadAccess, wantInvalid = aheadInvalid, wantFec = parityOutside;
            long wantBeyond = beyond + forgedReads, wantDup = duplicates;
            // the last round's frames may still be in the engines' receive paths
            long end = System.nanoTime() + 5_000_000_000L;
            while (System.nanoTime() - end < 0 && !(cb.get(Counter.DROP_AHEAD_ACCESS) >= wantAhead
                    && cb.get(Counter.DROP_AHEAD_INVALID) >= wantInvalid && cb.get(Counter.DROP_FEC_OUT_OF_WINDOW) >= wantFec
                    && cb.get(Counter.DROP_NOT_PLACEABLE) >= wantBeyond && cb.get(Counter.DUPLICATE_REQUEST) >= wantDup
                    && ca.get(Counter.STALE_RESPONSES) >= wantStale)) {
                Thread.sleep(5);
            }
            // and the SACKs for the forged gap have stopped
            long sacks = -1;
            while (System.nanoTime() - end < 0 && sacks != cb.get(Counter.SACKS_SENT)) {
                sacks = cb.get(Counter.SACKS_SENT);
                Thread.sleep(300);
            }
            System.out.println("B: " + nonZero(cb) + "\nA: " + nonZero(ca) + "\nlinks A " + v.a.datapath.counters() + "\n      B "
                    + v.b.datapath.counters());
            assertEquals(QpState.RTS, v.a.qp.state(), "A survived");
            assertEquals(QpState.RTS, v.b.qp.state(), "B survived");
            assertEquals(-1, inside.mismatch(src), "the transfer placed every byte");
            byte[] guard = new byte[GUARD];
            java.util.Arrays.fill(guard, GUARD_BYTE);
            assertEquals(-1, whole.asSlice(0, GUARD).mismatch(MemorySegment.ofArray(guard)), "below the region");
            assertEquals(-1, whole.asSlice(GUARD + region, GUARD).mismatch(MemorySegment.ofArray(guard)), "above the region");
            assertEquals(aheadAccess, cb.get(Counter.DROP_AHEAD_ACCESS), "R_Key ahead of the expected PSN");
            assertEquals(aheadInvalid, cb.get(Counter.DROP_AHEAD_INVALID), "no per-packet RETH ahead");
            assertEquals(parityOutside, cb.get(Counter.DROP_FEC_OUT_OF_WINDOW), "parity outside the window");
            assertTrue(cb.get(Counter.DROP_NOT_PLACEABLE) >= beyond + forgedReads, "beyond the window, and the READ ahead: "
                    + cb.get(Counter.DROP_NOT_PLACEABLE));
            assertTrue(cb.get(Counter.DUPLICATE_REQUEST) >= duplicates, "duplicates: " + cb.get(Counter.DUPLICATE_REQUEST));
            assertTrue(ca.get(Counter.STALE_RESPONSES) >= staleSacks + readResponses, "stale SACKs and READ responses: "
                    + ca.get(Counter.STALE_RESPONSES));
            assertEquals(0, cb.get(Counter.NAKS_SENT), "nothing forged reached the expected PSN");
            assertTrue(cb.get(Counter.SACKS_SENT) >= 1, "the forged READ's gap is SACKed");
            assertTrue(cb.get(Counter.SACKS_SENT) <= 16L * CHUNKS, "SACKs for the forged gap back off: " + cb.get(Counter.SACKS_SENT));
            assertTrue(cb.get(Counter.FEC_PARITY_RCVD) >= parityOfOne, "parity inside the window is taken, not dropped");
            // the forged READ's gap reaches past every PSN A sent: those ranges of B's SACKs are dropped and counted, and
            // nothing is resent for them. The bound on duplicates at B: the forged ones, plus the oldest and the newest
            // PSN each ACK timeout resends (veth neither reorders nor duplicates)
            assertTrue(ca.get(Counter.DROP_SACK_UNSENT) >= 1, "SACK ranges naming unsent PSNs: " + ca.get(Counter.DROP_SACK_UNSENT));
            assertTrue(cb.get(Counter.DUPLICATE_REQUEST) <= duplicates + 2 * ca.get(Counter.ACK_TIMEOUTS), "spurious resends: "
                    + (cb.get(Counter.DUPLICATE_REQUEST) - duplicates) + " with " + ca.get(Counter.ACK_TIMEOUTS) + " ACK timeouts");
        }
    }

    private static String nonZero(QpCounters c) {
        StringBuilder s = new StringBuilder();
        for (Counter k : Counter.values()) {
            if (k.scope() == Counter.Scope.QP && c.get(k) != 0) s.append(k.label()).append('=').append(c.get(k)).append(' ');
        }
        return s.toString();
    }

    /** A WRITE_ONLY of 512 bytes with a per-packet RETH (when the flags say so) and a timestamp. */
    private static Packet request(Injector f, int psn, int rkey, long va, int uethFlags, UnsafeBuffer payload) {
        return ForgedWanFrames.request(f.packet(), f.to.qp.qpNum(), Opcode.RC_RDMA_WRITE_ONLY, psn, rkey, va, uethFlags, payload);
    }

    private static Packet parity(Injector f, int base, int m, UnsafeBuffer payload) {
        return ForgedWanFrames.parity(f.packet(), f.to.qp.qpNum(), base, m, payload);
    }

    private static Packet staleSack(Injector f, int psn) {
        return ForgedWanFrames.sack(f.packet(), f.to.qp.qpNum(), psn);
    }

    private static Packet readResponse(Injector f, int psn, UnsafeBuffer payload) {
        return ForgedWanFrames.readResponse(f.packet(), f.to.qp.qpNum(), psn, payload);
    }
}
