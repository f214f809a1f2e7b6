package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * rxe's check_addr: an RC or UC packet whose source is not the QP's destination is dropped and counted, whatever its
 * QPN, PSN and rkey, in every framing (by what the framing carries of the sender).
 */
class ForeignSourceTest {
    static final long MS = 1_000_000L;
    static final int LEN = 256;

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"RC, ROCE2", "RC, ROCE1", "RC, PAXI_STANDARD", "RC, PAXI_AFH1", "RC, PAXI_AFH2", "UC, ROCE2", "UC, ROCE1"})
    void foreignSourceWriteIsDroppedAndCountedNeverPlaced(QpType type, FramingKind kind) {
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.goBackN(), MemoryLink.Config.defaults(), 512,
                MemoryFabric.CodecFactory.wire(kind))) {
            QueuePair[] qp = r.connect(type, MemoryFabric.Connection.defaults());
            SoftQp b = (SoftQp) qp[1];
            MemoryRegion dst = r.mrB(4096, AccessFlags.ALL);
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            src.segment().fill((byte) 0x33);
            Frames frames = new Frames(r.fabric, kind);
            UnsafeBuffer payload = new UnsafeBuffer(new byte[LEN]);
            payload.setMemory(0, LEN, (byte) 0x77);

            Packet forged = write(frames.packetWithGids(), type, b, dst, payload);
            // another host: its own MAC, IPv4 address, GID and XPU; QPN, PSN and rkey all right
            forged.srcMac ^= 0x10;
            forged.ipSrc = 0x0A000063;
            forged.sgidLo ^= 0x10;
            forged.srcXpu ^= 0x10;
            int ePsn = b.responder.ePsn;
            assertTrue(frames.send(forged, r.sim.now()));
            r.run(MS);
            assertEquals(-1, dst.segment().mismatch(MemorySegment.ofArray(new byte[4096])), "nothing placed (first)");assertEquals(1, b.stats().get(Counter.DROP_FOREIGN_SOURCE), "counted on the QP");
            assertEquals(1, r.fabric.b.stats().get(Counter.DROP_FOREIGN_SOURCE), "counted on the device");
            assertEquals(ePsn, b.responder.ePsn, "the PSN was not consumed");
            assertEquals(-1, dst.segment().mismatch(MemorySegment.ofArray(new byte[4096])), "nothing placed");
            assertEquals(QpState.RTS, qp[1].state());

            // the connection still works, and the same frame from the peer's address is taken (the forgery was well formed)
            qp[0].postSend(new SendWorkRequest().wrId(1).flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE)
                    .addSge(src, 0, 1024).remote(dst.address() + 1024, dst.rkey()));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, 100 * MS).get(0).status);
            r.run(MS);
            assertEquals(-1, dst.segment().asSlice(1024, 1024).mismatch(src.segment().asSlice(0, 1024)));
            Packet genuine = write(frames.packetWithGids(), type, b, dst, payload);
            assertTrue(frames.send(genuine, r.sim.now()));
            r.run(MS);
            assertEquals(-1, dst.segment().asSlice(0, LEN).mismatch(MemorySegment.ofArray(new byte[LEN]).fill((byte) 0x77)));
            assertEquals(1, b.stats().get(Counter.DROP_FOREIGN_SOURCE));
        }
    }

    private static Packet write(Packet p, QpType type, SoftQp b, MemoryRegion dst, UnsafeBuffer payload) {
        p.opcode = (type == QpType.RC ? Opcode.TRANSPORT_RC : Opcode.TRANSPORT_UC) | Opcode.RDMA_WRITE_ONLY;
        p.destQp = b.qpNum();
        p.psn = b.responder.ePsn;
        p.ackReq = type == QpType.RC;
        p.rethVa = dst.address();
        p.rethRkey = dst.rkey();
        p.rethDmaLength = LEN;
        p.payloadBuffer = payload;
        p.payloadOffset = 0;
        p.payloadLength = LEN;
        return p;
    }
}
