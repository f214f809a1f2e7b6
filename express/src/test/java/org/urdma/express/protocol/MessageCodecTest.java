package org.urdma.express.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageCodecTest {
    private static Message roundTrip(Message m) {
        ByteBuffer b = MessageCodec.encode(m);
        return MessageCodec.decode(b, b.remaining());
    }

    private static String malformed(byte[] bytes) {
        return assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(bytes), bytes.length)).getMessage();
    }

    @Test
    void everyMessageDecodesToWhatWasEncoded() {
        Message.Entry e = new Message.Entry(7, Message.Kind.SYMLINK, "a b/ü\nx", 123, 0755, 1_500_000_000_123L, "../t");
        assertEquals(List.of(e), ((Message.Files) roundTrip(new Message.Files(List.of(e)))).entries());
        BitSet bits = new BitSet();
        bits.set(3);
        bits.set(900);
        Message.Plan p = (Message.Plan) roundTrip(new Message.Plan(4, 1000, bits));
        assertEquals(bits, p.durable());
        byte[] h = new byte[32];
        h[5] = 9;
        Message.Chunk c = (Message.Chunk) roundTrip(new Message.Chunk(2, List.of(new Message.Segment(1, 2, 3, 4, Message.DATA, h)),
                List.of(new Message.FileEnd(1, 3, h))));
        assertEquals(2, c.slot());
        assertArrayEquals(h, c.segments().get(0).hash());
        assertEquals(3, c.ends().get(0).blocks());
        assertEquals(new Message.Hello(99, "d", 1 << 22, 3), roundTrip(new Message.Hello(99, "d", 1 << 22, 3)));
        assertEquals(new Message.Grant(1, 0x1000, 77, 4096), roundTrip(new Message.Grant(1, 0x1000, 77, 4096)));
        assertEquals(new Message.Summary(5, 1, 2, 3, 4), roundTrip(new Message.Summary(5, 1, 2, 3, 4)));
        assertEquals(List.of("*.tmp", "a/b"), ((Message.Protect) roundTrip(new Message.Protect(List.of("*.tmp", "a/b")))).globs());
        Message.Entry keep = new Message.Entry(8, Message.Kind.KEEP, "k", 0, 0, 0, "");
        assertEquals(List.of(keep), ((Message.Files) roundTrip(new Message.Files(List.of(keep)))).entries());
    }

    @Test
    void aMalformedMessageIsRefusedNamingWhatIsWrong() {
        assertEquals("malformed control message: 3 bytes, shorter than the 8-byte header", malformed(new byte[] {0x55, 0x58, 1}));
        assertEquals("malformed control message: version 9, this side speaks 2", malformed(new byte[] {0x55, 0x58, 9, 1, 0, 0, 0, 8}));
        assertEquals("malformed control message: unknown type 77", malformed(new byte[] {0x55, 0x58, 2, 77, 0, 0, 0, 8}));
        assertEquals("malformed control message: END declares 9 bytes, 8 arrived", malformed(new byte[] {0x55, 0x58, 2, 10, 0, 0, 0, 9}));
        assertEquals("malformed control message: END has 1 bytes after its last field", malformed(new byte[] {0x55, 0x58, 2, 10, 0, 0, 0, 9, 0}));
        byte[] dataWithoutWindow = MessageCodec.encode(new Message.Chunk(-1, List.of(new Message.Segment(1, 0, 0, 4, Message.DATA, new byte[32])),
                List.of())).array();
        int n = MessageCodec.encode(new Message.Chunk(-1, List.of(new Message.Segment(1, 0, 0, 4, Message.DATA, new byte[32])), List.of())).remaining();
        assertEquals("malformed control message: CHUNK has a DATA segment but no window",
                assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(dataWithoutWindow, 0, n), n)).getMessage());
        byte[] badGlob = MessageCodec.encode(new Message.Protect(List.of("a[b"))).array();
        int g = MessageCodec.encode(new Message.Protect(List.of("a[b"))).remaining();
        String m = assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(badGlob, 0, g), g)).getMessage();
        org.junit.jupiter.api.Assertions.assertTrue(m.startsWith("malformed control message: PROTECT.glob 'a[b' is not a glob"), m);
        byte[] badUtf8 = {0x55, 0x58, 2, 3, 0, 0, 0, 12, 0, 2, (byte) 0xC3, 0x28};
        assertEquals("malformed control message: ERROR.reason is not UTF-8", malformed(badUtf8));
    }
}
