package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class PacketFormatterTest {
    @Test
    void describesVectorFramesLikeTheListing() throws Exception {
        final List<byte[]> frames = Vectors.frames("rxe-vectors.pcap");
        final Framing roce2 = Framings.of(FramingKind.ROCE2);
        final Packet p = new Packet();
        final byte[] first = frames.get(0);
        assertEquals(DecodeStatus.OK, roce2.decode(new UnsafeBuffer(first), 0, first.length, p));
        assertEquals("roce2 10.77.0.3 > 10.77.0.2 RC_SEND_FIRST qp=0x000011 psn=0x8fff2e pad=0 len=1024",
            PacketFormatter.summary(p));
        final byte[] rnr = frames.get(328);   // frame 329: RNR NAK
        assertEquals(DecodeStatus.OK, roce2.decode(new UnsafeBuffer(rnr), 0, rnr.length, p));
        assertTrue(PacketFormatter.summary(p).contains("RNR_NAK timer="), PacketFormatter.summary(p));
        final String detail = PacketFormatter.detail(p);
        assertTrue(detail.contains("aeth syndrome=0x"), detail);
        assertTrue(detail.contains("ipv4 tos=0x00 ttl=64"), detail);
    }
}
