package org.urdma.express.protocol;

import java.nio.ByteBuffer;

/**
 * The eight bytes every control message starts with: magic {@code 'U','X'}, version, type, and the message's whole
 * length (header included), so a receiver checks a message against the bytes that arrived before it reads a field.
 */
public final class MessageHeader {
    public static final int MAGIC = 0x5558;
    public static final int VERSION = 2;
    public static final int LENGTH = 8;

    private MessageHeader() {
    }

    /** Writes a header with length 0 at the buffer's position; {@link #finish} fills the length. */
    public static void start(ByteBuffer b, MessageType type) {
        b.putShort((short) MAGIC).put((byte) VERSION).put((byte) type.code()).putInt(0);
    }

    /** Sets the length field from the buffer's position and flips it for sending. */
    public static ByteBuffer finish(ByteBuffer b) {
        b.putInt(4, b.position());
        return b.flip();
    }

    /**
     * Checks the header of {@code length} received bytes at the buffer's position and returns the type; the buffer is
     * left after the header with its limit at the message's end.
     */
    public static MessageType check(ByteBuffer b, int length) {
        if (length < LENGTH) throw new MalformedMessageException(length + " bytes, shorter than the " + LENGTH + "-byte header");
        int magic = b.getShort() & 0xFFFF;
        if (magic != MAGIC) throw new MalformedMessageException("magic 0x" + Integer.toHexString(magic) + ", expected 0x5558");
        int version = b.get() & 0xFF;
        if (version != VERSION) throw new MalformedMessageException("version " + version + ", this side speaks " + VERSION);
        int code = b.get() & 0xFF;
        MessageType t = MessageType.of(code);
        if (t == null) throw new MalformedMessageException("unknown type " + code);
        int declared = b.getInt();
        if (declared != length) throw new MalformedMessageException(t + " declares " + declared + " bytes, " + length + " arrived");
        b.limit(b.position() - LENGTH + length);
        return t;
    }
}
