package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * UD multicast over in-memory links: device a sends to a group; device b has two QPs attached, device c (reached
 * through a tap that copies every frame a sends, as a switch floods a group MAC) one. Each attached QP gets every
 * message, a detached one none, and the frames go to the group's MAC and IP with DestQP 0xFFFFFF.
 */
class UdMulticastTest {
    private static final long START = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final int QKEY = 0x11111111;
    private static final Gid GROUP = Gid.fromIpv4(new byte[] {(byte) 239, 1, 2, 3});
    private static final int MESSAGES = 20;

    private MemoryFabric ab;
    private MemoryFabric cd;
    private SimulatedDriver sim;
    private final Arena arena = Arena.ofShared();
    private final List<byte[]> framesFromA = new ArrayList<>();

    @BeforeEach
    void setUp() {
        MemoryFabric.CodecFactory roce2 = MemoryFabric.CodecFactory.wire(FramingKind.ROCE2);
        ab = new MemoryFabric(DeviceConfig.named("a", 1), DeviceConfig.named("b", 2), MemoryLink.Config.defaults(), roce2,
                ImpairmentConfig.none(), ImpairmentConfig.none(), 1, START);
        cd = new MemoryFabric(DeviceConfig.named("c", 3), DeviceConfig.named("d", 4), MemoryLink.Config.defaults(), roce2,
                ImpairmentConfig.none(), ImpairmentConfig.none(), 2, START);
        ab.linkA.tap((frame, offset, length, now) -> {
            byte[] f = new byte[length];
            frame.getBytes(offset, f);
            framesFromA.add(f);
            cd.linkB.inject(new UnsafeBuffer(f), 0, length, now); // flooded to c as well
        });
        sim = new SimulatedDriver(START, ab.a, ab.b, cd.a, cd.b);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    /** A UD QP in RTS on {@code d} with its own CQ and {@code n} receives posted. */
    private record Receiver(QueuePair qp, CompletionQueue cq, MemoryRegion mr) {
    }

    private Receiver receiver(SoftDevice d, ProtectionDomain pd, int n) {
        CompletionQueue cq = d.createCq(256, null);
        QueuePair qp = pd.createQp(MemoryFabric.init(QpType.UD, cq, 256));
        MemoryFabric.bringUp(qp, d, 0, 0, 0, MemoryFabric.Connection.defaults());
        MemoryRegion mr = pd.registerMemory(arena.allocate(256L * n, 64), AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < n; i++) qp.postRecv(new ReceiveWorkRequest().wrId(i).addSge(mr, 256L * i, 256));
        return new Receiver(qp, cq, mr);
    }

    private static List<WorkCompletion> poll(CompletionQueue cq) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] buf = new WorkCompletion[64];
        for (int i = 0; i < buf.length; i++) buf[i] = new WorkCompletion();
        int n;
        while ((n = cq.poll(buf)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion c = new WorkCompletion();
                c.wrId = buf[i].wrId; c.status = buf[i].status; c.byteLen = buf[i].byteLen; c.qpNum = buf[i].qpNum;
                c.srcQp = buf[i].srcQp;
                out.add(c);
            }
        }
        return out;
    }

    /** Sends {@code MESSAGES} SENDs of 64 bytes (byte i+1 in message i) from a new UD QP on a to the group. */
    private QueuePair send() {
        ProtectionDomain pd = ab.a.allocPd();
        CompletionQueue cq = ab.a.createCq(256, null);
        QueuePair qp = pd.createQp(MemoryFabric.init(QpType.UD, cq, 256));
        MemoryFabric.bringUp(qp, ab.a, 0, 0, 0, MemoryFabric.Connection.defaults());
        MemoryRegion src = pd.registerMemory(arena.allocate(64L * MESSAGES, 64), AccessFlags.LOCAL_WRITE);
        AddressHandle ah = pd.createAh(new AddressHandleAttributes().dgid(GROUP));
        for (int i = 0; i < MESSAGES; i++) {
            src.segment().asSlice(64L * i, 64).fill((byte) (i + 1));
            qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .addSge(src, 64L * i, 64).ud(ah, RxDemux.MULTICAST_QPN, QKEY));
        }
        List<WorkCompletion> done = new ArrayList<>();
        sim.runUntil(() -> {
            done.addAll(poll(cq));
            return done.size() >= MESSAGES;
        }, 10 * MS);
        assertEquals(MESSAGES, done.size(), "the sender completed every SEND");
        sim.runFor(MS);
        return qp;
    }

    private static void assertGotEveryMessage(Receiver r, QueuePair sender, String who) {
        List<WorkCompletion> got = poll(r.cq);
        assertEquals(MESSAGES, got.size(), who + " got every message");
        for (int i = 0; i < MESSAGES; i++) {
            WorkCompletion w = got.get(i);
            assertEquals(WcStatus.SUCCESS, w.status, who);
            assertEquals(40 + 64, w.byteLen, who);
            assertEquals(r.qp.qpNum(), w.qpNum, who + ": the completion names the receiving QP");
            assertEquals(sender.qpNum(), w.srcQp, who);
            byte b = r.mr.segment().get(ValueLayout.JAVA_BYTE, 256L * w.wrId + 40 + 63);
            assertEquals((byte) (w.wrId + 1), b, who + " message " + w.wrId + " landed behind the GRH");
        }
    }

    @Test
    void everyAttachedQpOnEachDeviceGetsEveryMessageAndADetachedQpNone() {
        ProtectionDomain pdB = ab.b.allocPd();
        ProtectionDomain pdC = cd.a.allocPd();
        Receiver b1 = receiver(ab.b, pdB, MESSAGES);
        Receiver b2 = receiver(ab.b, pdB, MESSAGES);
        Receiver left = receiver(ab.b, pdB, MESSAGES);
        Receiver c1 = receiver(cd.a, pdC, MESSAGES);
        b1.qp.attachMcast(GROUP, 0);
        b2.qp.attachMcast(GROUP, 0);
        left.qp.attachMcast(GROUP, 0);
        c1.qp.attachMcast(GROUP, 0);
        left.qp.detachMcast(GROUP, 0);
        QueuePair sender = send();
        assertGotEveryMessage(b1, sender, "b's first QP");
        assertGotEveryMessage(b2, sender, "b's second QP");
        assertGotEveryMessage(c1, sender, "c's QP");
        assertEquals(List.of(), poll(left.cq), "the detached QP got nothing");
    }

    @Test
    void aGroupNobodyJoinedIsDroppedAsForAnUnknownQp() {
        Receiver b1 = receiver(ab.b, ab.b.allocPd(), MESSAGES);
        long before = ab.b.counters().get(Counter.DROP_UNKNOWN_QP);
        send();
        assertEquals(List.of(), poll(b1.cq));
        assertEquals(MESSAGES, ab.b.counters().get(Counter.DROP_UNKNOWN_QP) - before);
    }

    @Test
    void framesGoToTheGroupsMacAndIpWithDestQpAllOnes() {
        send();
        assertEquals(MESSAGES, framesFromA.size());
        for (byte[] f : framesFromA) {
            UnsafeBuffer b = new UnsafeBuffer(f);
            assertEquals(0x0100_5E01_0203L, (b.getLong(0, java.nio.ByteOrder.BIG_ENDIAN) >>> 16), "destination MAC");
            assertEquals(0xEF010203, b.getInt(14 + 16, java.nio.ByteOrder.BIG_ENDIAN), "IPv4 destination 239.1.2.3");
            assertEquals(0xFFFFFF, b.getInt(42 + 4, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFFFF, "BTH DestQP");
        }
    }

    @Test
    void badCallsThrowNamingTheField() {
        ProtectionDomain pdB = ab.b.allocPd();
        Receiver ud = receiver(ab.b, pdB, 1);
        CompletionQueue cq = ab.b.createCq(16, null);
        QueuePair rc = pdB.createQp(MemoryFabric.init(QpType.RC, cq, 16));
        String e1 = assertThrows(IllegalArgumentException.class, () -> rc.attachMcast(GROUP, 0)).getMessage();
        assertTrue(e1.startsWith("qp_type: "), e1);
        Gid unicast = Gid.fromIpv4(new byte[] {10, 0, 0, 1});
        String e2 = assertThrows(IllegalArgumentException.class, () -> ud.qp.attachMcast(unicast, 0)).getMessage();
        assertTrue(e2.startsWith("gid: ") && e2.contains("no multicast GID"), e2);
        String e3 = assertThrows(IllegalArgumentException.class, () -> ud.qp.detachMcast(GROUP, 0)).getMessage();
        assertTrue(e3.startsWith("gid: ") && e3.contains("not attached"), e3);
    }

    @Test
    void attachingTwiceIsOneMembershipAndClosingTheQpLeavesItsGroups() {
        ProtectionDomain pdB = ab.b.allocPd();
        Receiver r = receiver(ab.b, pdB, 1);
        r.qp.attachMcast(GROUP, 0);
        r.qp.attachMcast(GROUP, 0);
        assertEquals(List.of(GROUP), ab.b.multicastGroupsOf(r.qp));
        r.qp.detachMcast(GROUP, 0);
        assertThrows(IllegalArgumentException.class, () -> r.qp.detachMcast(GROUP, 0), "one detach undid both attaches");
        r.qp.attachMcast(GROUP, 0);
        r.qp.close();
        assertEquals(0, ab.b.control(() -> ab.b.mcast().size()), "the closed QP's group is gone");
    }
}
