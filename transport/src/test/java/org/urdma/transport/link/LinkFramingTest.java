package org.urdma.transport.link;

import static org.junit.jupiter.api.Assertions.*;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.packet.Payloads;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Icrc;
import org.urdma.verbs.Gid;

class LinkFramingTest {
    static final byte[] MAC_A = {2, 0, 0, 0, 0, 1}, MAC_B = {2, 0, 0, 0, 0, 2};

    /** A 100-byte RC SEND ONLY from A to B; returns the frame length. */
    private static int send(LinkFraming f, UnsafeBuffer frame) {
        TxPacket t = f.begin(frame, 0).start(0x04, 0x12, 7, true, false).payload(new UnsafeBuffer(new byte[100]), 0, 100);
        return f.end(t, new Route().set(MAC_B, Gid.fromMac(MAC_B).toBytes()));
    }

    @Test
    void anOffloadedIcrcIsNeitherComputedNorChecked() {
        LinkFraming a = new LinkFraming(FramingKind.ROCE2, MAC_A, Gid.fromMac(MAC_A).toBytes());
        LinkFraming b = new LinkFraming(FramingKind.ROCE2, MAC_B, Gid.fromMac(MAC_B).toBytes());
        UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        int len = send(a, frame);
        assertNotEquals(0, frame.getInt(len - Icrc.LENGTH), "computed when not offloaded");
        a.txIcrcOffload(true);
        len = send(a, frame);
        assertEquals(0, frame.getInt(len - Icrc.LENGTH), "a zero ICRC field when offloaded");
        assertNull(b.decode(frame, 0, len), "a receiver that checks refuses it");
        RxPacket p = b.decode(frame, 0, len, true);
        assertNotNull(p, "an offloading receiver takes it");
        assertEquals(7, p.psn());
        assertEquals(100, p.payloadLength());
    }

    @Test
    void theMemoryLinkOffloadsTheIcrcOnlyWhileNothingCanDamageOrCaptureFrames() {
        assertTrue(MemoryLinkTest.pair(ImpairmentConfig.none())[0].icrcOffloaded());
        assertTrue(MemoryLinkTest.pair(ImpairmentConfig.random(0.1, 0.1, 0.1, 3))[1].icrcOffloaded(), "loss and reordering damage nothing");
        assertFalse(MemoryLinkTest.pair(ImpairmentConfig.none().corrupt(0.01, 0))[1].icrcOffloaded(), "corruption: the ICRC must catch it");
        MemoryLink[] l = MemoryLinkTest.pair(ImpairmentConfig.none());
        l[1].tap((frame, offset, length, now) -> { });
        assertFalse(l[0].icrcOffloaded(), "a capture must hold real frames");
        MemoryLink[] m = MemoryLinkTest.pair(ImpairmentConfig.none());
        assertTrue(m[0].inject(new UnsafeBuffer(new byte[60]), 0, 60, 0));
        assertFalse(m[1].icrcOffloaded(), "a foreign frame may be damaged");
    }

    @Test
    void framesSentWithTheIcrcOffloadedArriveWhenTheOffloadStopsWhileTheyAreInFlight() {
        MemoryLink[] l = MemoryLinkTest.pair(ImpairmentConfig.none());
        UnsafeBuffer payload = new UnsafeBuffer(new byte[256]);
        for (int i = 0; i < 4; i++) {
            assertTrue(TestPackets.send(l[0], TestPackets.routeTo(MemoryLinkTest.MAC_B), 0x04, 0x12, i, payload, 256, 0));
        }
        l[1].tap((frame, offset, length, now) -> { }); // the offload stops with four offloaded frames in flight
        assertTrue(TestPackets.send(l[0], TestPackets.routeTo(MemoryLinkTest.MAC_B), 0x04, 0x12, 4, payload, 256, 0));
        java.util.List<Integer> got = new java.util.ArrayList<>();
        l[1].receive(1_000_000, (p, now) -> got.add(p.psn()), 100);
        assertEquals(java.util.List.of(0, 1, 2, 3, 4), got);
        assertEquals(0, l[1].malformedFrames());
    }

    /** A toy description: 8 frame bytes (length, fill byte) stand for {@code length} bytes of that fill. */
    private static final Payloads FILL = new Payloads() {
        @Override
        public int put(MutableDirectBuffer frame, int payloadAt, int taken, DirectBuffer src, int srcOffset, int length) {
            frame.putInt(payloadAt, length);
            frame.putInt(payloadAt + 4, src.getByte(srcOffset));
            return 8;
        }

        @Override
        public void get(DirectBuffer frame, int payloadAt, int within, MutableDirectBuffer dst, int dstOffset, int length) {
            dst.setMemory(dstOffset, length, (byte) frame.getInt(payloadAt + 4));
        }

        @Override
        public int length(DirectBuffer frame, int payloadAt, int frameBytes) {
            return frame.getInt(payloadAt);
        }
    };

    @Test
    void aDescribedPayloadsSectionIsWhatTheFrameHoldsAndARebuiltPacketReadsItThroughTheSameSeam() {
        LinkFraming a = new LinkFraming(FramingKind.ROCE2, MAC_A, Gid.fromMac(MAC_A).toBytes());
        LinkFraming b = new LinkFraming(FramingKind.ROCE2, MAC_B, Gid.fromMac(MAC_B).toBytes());
        a.payloads(FILL);
        b.payloads(FILL);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        UnsafeBuffer src = new UnsafeBuffer(new byte[100]);
        src.setMemory(0, 100, (byte) 0x5A);
        TxPacket t = a.begin(frame, 0).start(0x04, 0x12, 7, true, false).payload(src, 0, 100);
        int len = a.end(t, new Route().set(MAC_B, Gid.fromMac(MAC_B).toBytes()));
        RxPacket p = b.decode(frame, 0, len);
        assertNotNull(p, () -> "decoded: " + b.lastError());
        assertEquals(100, p.payloadLength(), "the length the description gives");
        assertEquals(8, p.payloadBytes(), "what the frame holds");
        int section = p.sectionEnd() - p.transportOffset();
        assertEquals(12 + 8, section, "the BTH and the description: what P-FEC protects");
        UnsafeBuffer copy = new UnsafeBuffer(new byte[section]);
        copy.putBytes(0, p.payload(), p.transportOffset(), section);
        RxPacket rebuilt = new RxPacket();
        assertTrue(rebuilt.rebuild(p, copy, section));
        assertEquals(7, rebuilt.psn());
        assertEquals(100, rebuilt.payloadLength(), "a rebuilt section is read through the link's seam");
        UnsafeBuffer dst = new UnsafeBuffer(new byte[100]);
        rebuilt.payloadTo(0, dst, 0, 100);
        for (int i = 0; i < 100; i++) assertEquals(0x5A, dst.getByte(i), "byte " + i);
    }
}
