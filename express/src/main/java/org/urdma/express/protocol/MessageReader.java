package org.urdma.express.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Reads a message body field by field; every read checks that the bytes are there and names the field when not. */
public final class MessageReader {
    private final ByteBuffer b;
    private final MessageType type;

    public MessageReader(ByteBuffer b, MessageType type) {
        this.b = b;
        this.type = type;
    }

    public MessageType type() {
        return type;
    }

    private void need(int n, String field) {
        if (b.remaining() < n) {
            throw new MalformedMessageException(type + "." + field + " needs " + n + " bytes, " + b.remaining() + " remain");
        }
    }

    public int u8(String field) {
        need(1, field);
        return b.get() & 0xFF;
    }

    public int u16(String field) {
        need(2, field);
        return b.getShort() & 0xFFFF;
    }

    public int i32(String field) {
        need(4, field);
        return b.getInt();
    }

    /** A u32 that must be 0..max. */
    public int count(String field, int max) {
        int v = i32(field);
        if (v < 0 || v > max) throw new MalformedMessageException(type + "." + field + " is " + Integer.toUnsignedString(v) + ", at most " + max);
        return v;
    }

    public long i64(String field) {
        need(8, field);
        return b.getLong();
    }

    public byte[] bytes(int n, String field) {
        need(n, field);
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }

    /** A u16 length and that many bytes of UTF-8 (malformed UTF-8 is refused, not replaced). */
    public String string(String field) {
        int n = u16(field + ".length");
        need(n, field);
        ByteBuffer slice = b.slice(b.position(), n);
        b.position(b.position() + n);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedMessageException(type + "." + field + " is not UTF-8");
        }
    }

    /** The message must end here. */
    public void end() {
        if (b.hasRemaining()) throw new MalformedMessageException(type + " has " + b.remaining() + " bytes after its last field");
    }
}
