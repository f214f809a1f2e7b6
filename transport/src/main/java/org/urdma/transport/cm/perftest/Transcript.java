package org.urdma.transport.cm.perftest;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** The bytes of an exchange in the order they crossed the socket, for reports and debugging. */
public final class Transcript {

    /** One write or read of one step. */
    public record Entry(String step, boolean sent, byte[] bytes) {
        public Entry {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public String toString() {
            return (sent ? "-> " : "<- ") + step + " (" + bytes.length + " B): " + printable(bytes)
                    + "  hex " + HexFormat.of().formatHex(bytes);
        }
    }

    private final List<Entry> entries = new ArrayList<>();

    void add(String step, boolean sent, byte[] bytes) {
        entries.add(new Entry(step, sent, bytes));
    }

    public List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** Bytes received for the n-th occurrence (0-based) of a step, or null. */
    public byte[] received(String step, int occurrence) {
        int n = 0;
        for (Entry e : entries) {
            if (!e.sent() && e.step().equals(step) && n++ == occurrence) {
                return e.bytes();
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) {
            sb.append(e).append('\n');
        }
        return sb.toString();
    }

    /** ASCII with C escapes for the rest, so key strings read as text and binary fields stay visible. */
    static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                sb.append((char) c);
            } else if (c == 0) {
                sb.append("\\0");
            } else {
                sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.append('"').toString();
    }
}
