package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;

/** Random, well-framed but hostile packets: the engine never throws, and memory outside the exposed region never changes. */
class HostileInputTest {
    @Test
    void randomPacketsNeverCrashTheEngineNorTouchUnexposedMemory() {
        try (Rig r = new Rig()) {
            QueuePair[] rc = r.rc();
            QueuePair[] uc = r.connect(QpType.UC, org.urdma.transport.driver.MemoryFabric.Connection.defaults());
            QueuePair[] ud = r.connect(QpType.UD, org.urdma.transport.driver.MemoryFabric.Connection.defaults());
            MemorySegment whole = r.segment(3 * 65536);
            whole.fill((byte) 0x5A);
            MemoryRegion exposed = r.pdB.registerMemory(whole.asSlice(65536, 65536), AccessFlags.ALL);
            MemoryRegion inbox = r.mrB(1 << 16, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 64; i++) {
                rc[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(inbox, 0, 4096));
                uc[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(inbox, 4096, 4096));
                ud[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(inbox, 8192, 4096));
            }
            int[] qpns = {rc[1].qpNum(), uc[1].qpNum(), ud[1].qpNum(), rc[0].qpNum(), 0xABCDE};
            long[] vas = {exposed.address(), exposed.address() - 8, exposed.address() + 65536 - 4, whole.address(), 0, -1L >>> 1};
            int[] keys = {exposed.rkey(), exposed.lkey(), inbox.rkey(), 0, 0x12345678};
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
            SplittableRandom rnd = new SplittableRandom(77);
            Frames frames = new Frames(r.fabric);
            for (int n = 0; n < 20_000; n++) {
                Packet p = frames.packet();
                int service = new int[] {Opcode.TRANSPORT_RC, Opcode.TRANSPORT_UC, Opcode.TRANSPORT_UD}[rnd.nextInt(3)];
                p.opcode = service | rnd.nextInt(0x18);
                p.destQp = qpns[rnd.nextInt(qpns.length)];
                p.psn = rnd.nextBoolean() ? Psn.add(100, rnd.nextInt(-5, 40)) : rnd.nextInt(1 << 24);
                p.ackReq = rnd.nextBoolean();
                p.rethVa = vas[rnd.nextInt(vas.length)] + rnd.nextInt(-64, 64);
                p.rethRkey = keys[rnd.nextInt(keys.length)];
                p.rethDmaLength = rnd.nextBoolean() ? rnd.nextInt(0, 70_000) : rnd.nextInt();
                p.atomicVa = p.rethVa;
                p.atomicRkey = p.rethRkey;
                p.aethSyndrome = rnd.nextInt(256);
                p.aethMsn = rnd.nextInt(1 << 24);
                p.dethQkey = rnd.nextBoolean() ? 0x11111111 : rnd.nextInt();
                p.dethSrcQp = rnd.nextInt(1 << 24);
                p.payloadBuffer = payload;
                p.payloadLength = rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(1, 1025);
                p.payloadLength &= ~3; // keep to lengths every framing takes
                try {
                    frames.send(p, r.sim.now());
                } catch (IllegalArgumentException notFramable) {
                    continue; // the encoder refuses field combinations no frame can carry; the attacker cannot send those
                }
                if ((n & 63) == 0) r.run(20_000);
            }
            r.run(1_000_000_000L);
            assertTrue(r.fabric.linkB.receivedFrames() > 5_000, "frames reached the engine: " + r.fabric.linkB.receivedFrames());
            // whatever happened to the QPs, bytes outside the exposed region are untouched
            assertEquals(-1, whole.asSlice(0, 65536).mismatch(MemorySegment.ofArray(new byte[65536]).fill((byte) 0x5A)));
            assertEquals(-1, whole.asSlice(131072, 65536).mismatch(MemorySegment.ofArray(new byte[65536]).fill((byte) 0x5A)));
        }
    }
}
