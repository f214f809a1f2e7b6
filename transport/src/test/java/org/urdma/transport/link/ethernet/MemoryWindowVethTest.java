package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.MemoryWindow;
import org.urdma.verbs.MwBind;
import org.urdma.verbs.MwType;
import org.urdma.verbs.QpType;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * urdma to urdma between two namespaces: B binds a type 2 window, A writes through it, invalidates it with
 * SEND_WITH_INV (IETH on the wire, checked by our decoder and tshark), and its next WRITE is NAK'd leaving B's bytes.
 */
@Tag("root")
class MemoryWindowVethTest {
    static final int LEN = 16384;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** RC SEND_ONLY_WITH_INVALIDATE frames whose IETH names {@code rkey}; every RDMA frame must decode (ICRC checked). */
    static int sendsWithInvalidate(Path pcap, int rkey) throws Exception {
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        int n = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                UnsafeBuffer b = r.buffer();
                if (d.classify(b, 0, r.capturedLength()).framing() == null) continue; // ARP
                assertEquals(DecodeStatus.OK, d.decode(b, 0, r.capturedLength(), p));
                if (p.opcode == Opcode.RC_SEND_ONLY_WITH_INVALIDATE && p.iethRkey == rkey) n++;
            }
        }
        return n;
    }

    @Test
    void aWindowBoundWrittenInvalidatedBySendWithInvalidateThenNakedOverVeth(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("a.pcap");
        int[] rkeySeen = new int[1];
        try (AfPacketLinkVethTest.Veth v = new AfPacketLinkVethTest.Veth(FramingKind.ROCE2, 1500, AfPacketOptions.Version.V2, c -> c, QpType.RC)) {
            PcapWriter w = new PcapWriter(pcap);
            v.a.device.control(() -> {
                v.a.datapath.capture(w, System.currentTimeMillis() * 1_000_000 - System.nanoTime());
                return null;
            });
            v.connect(MemoryFabric.Connection.defaults());
            MemoryRegion exposed = v.b.pd.registerMemory(v.b.arena.allocate(LEN, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            MemorySegment seg = exposed.segment();
            seg.fill((byte) 0x5A);
            MemoryWindow mw = v.b.pd.allocMw(MwType.TYPE_2);
            int rkey = MemoryWindow.incRkey(mw.rkey());
            rkeySeen[0] = rkey;
            v.b.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED).bindMw(mw, rkey,
                    new MwBind().mr(exposed).addr(exposed.address() + 4096).length(8192).access(AccessFlags.REMOTE_WRITE)));
            AfPacketLinkVethTest.assertOk(v.b.await(5000), WcOpcode.BIND_MW);

            AfPacketLinkVethTest.fill(v.a.memory(), 0, 8192, 3);
            v.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(v.a.mr, 0, 8192).remote(exposed.address() + 4096, rkey));
            AfPacketLinkVethTest.assertOk(v.a.await(5000), WcOpcode.RDMA_WRITE);
            AfPacketLinkVethTest.assertSame(v.a.memory(), 0, seg, 4096, 8192);

            v.b.qp.postRecv(new ReceiveWorkRequest().wrId(3).addSge(v.b.mr, 0, 64));
            v.a.qp.postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey).flags(SendFlags.SIGNALED)
                    .addSge(v.a.mr, 0, 16));
            AfPacketLinkVethTest.assertOk(v.a.await(5000), WcOpcode.SEND);
            WorkCompletion recv = v.b.await(5000);
            AfPacketLinkVethTest.assertOk(recv, WcOpcode.RECV);
            assertTrue(recv.hasInvalidate(), recv.toString());
            assertEquals(rkey, recv.invalidatedRkey);

            MemorySegment before = MemorySegment.ofArray(new byte[LEN]).copyFrom(seg);
            AfPacketLinkVethTest.fill(v.a.memory(), 0, 8192, 77);
            v.a.qp.postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(v.a.mr, 0, 4096).remote(exposed.address() + 4096, rkey));
            WorkCompletion nak = v.a.await(5000);
            assertEquals(WcStatus.REM_ACCESS_ERR, nak.status, nak.toString());
            assertEquals(-1, seg.mismatch(before), "the NAK'd WRITE changed nothing");
            assertEquals(0x5A, seg.get(ValueLayout.JAVA_BYTE, 4095));
            v.a.device.control(() -> {
                v.a.datapath.closeCapture();
                return null;
            });
        }
        assertEquals(1, sendsWithInvalidate(pcap, rkeySeen[0]), "our decoder's SEND_ONLY_WITH_INVALIDATE frames naming the window");
        TsharkCheck.assertSendWithInvalidate(pcap, rkeySeen[0]);
    }
}
