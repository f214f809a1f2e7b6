package org.urdma.express.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Writes a message into a buffer; {@link #finish} sets the header's length. */
public final class MessageWriter {
    private final ByteBuffer b;

    public MessageWriter(ByteBuffer b, MessageType type) {
        this.b = b.clear();
        MessageHeader.start(b, type);
    }

    /** {@return a writer into a new heap buffer of {@link ControlLimits#MAX_MESSAGE} bytes} */
    public static MessageWriter of(MessageType type) {
        return new MessageWriter(ByteBuffer.allocate(ControlLimits.MAX_MESSAGE), type);
    }

    public MessageWriter u8(int v) {
        b.put((byte) v);
        return this;
    }

    public MessageWriter u16(int v) {
        b.putShort((short) v);
        return this;
    }

    public MessageWriter i32(int v) {
        b.putInt(v);
        return this;
    }

    public MessageWriter i64(long v) {
        b.putLong(v);
        return this;
    }

    public MessageWriter bytes(byte[] v) {
        b.put(v);
        return this;
    }

    public MessageWriter string(String s) {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        if (u.length > 0xFFFF) throw new IllegalArgumentException("string: " + u.length + " bytes of UTF-8, at most 65535");
        b.putShort((short) u.length).put(u);
        return this;
    }

    /** {@return bytes still free in the buffer} */
    public int remaining() {
        return b.remaining();
    }

    public int position() {
        return b.position();
    }

    public ByteBuffer finish() {
        return MessageHeader.finish(b);
    }
}
