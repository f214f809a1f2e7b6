package org.urdma.express.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/** Encodes each {@link Message} into one control message and decodes one, checking every field against its bounds. */
public final class MessageCodec {
    public static final int HASH = 32;
    /** Bytes a segment takes in a CHUNK. */
    public static final int SEGMENT_BYTES = 4 + 4 + 4 + 4 + 1 + HASH;
    /** Bytes a file end takes in a CHUNK. */
    public static final int FILE_END_BYTES = 4 + 4 + HASH;

    private MessageCodec() {
    }

    /** {@return the message as bytes ready to SEND (position 0, limit its length)} */
    public static ByteBuffer encode(Message m) {
        return switch (m) {
            case Message.Hello h -> MessageWriter.of(MessageType.HELLO).i64(h.copyId()).string(h.destination()).i32(h.blockSize()).u8(h.flags()).finish();
            case Message.Ready r -> MessageWriter.of(MessageType.READY).i32(r.slots()).i32(r.slotSize()).finish();
            case Message.Error e -> MessageWriter.of(MessageType.ERROR).string(clip(e.reason())).finish();
            case Message.Files f -> {
                MessageWriter w = MessageWriter.of(MessageType.FILES).u16(f.entries().size());
                for (Message.Entry e : f.entries()) {
                    w.i32(e.id()).u8(e.kind().ordinal()).string(e.path()).i64(e.size()).i32(e.mode()).i64(e.mtimeNs()).string(e.target());
                }
                yield w.finish();
            }
            case Message.Plan p -> {
                byte[] bits = p.durable().toByteArray();
                yield MessageWriter.of(MessageType.PLAN).i32(p.fileId()).i32(p.blocks()).i32(bits.length).bytes(bits).finish();
            }
            case Message.Grant g -> MessageWriter.of(MessageType.GRANT).i32(g.slot()).i64(g.address()).i32(g.rkey()).i32(g.length()).finish();
            case Message.Chunk c -> {
                MessageWriter w = MessageWriter.of(MessageType.CHUNK).i32(c.slot()).u16(c.segments().size());
                for (Message.Segment s : c.segments()) {
                    w.i32(s.fileId()).i32(s.block()).i32(s.offset()).i32(s.length()).u8(s.kind()).bytes(s.hash());
                }
                w.u16(c.ends().size());
                for (Message.FileEnd e : c.ends()) w.i32(e.fileId()).i32(e.blocks()).bytes(e.digest());
                yield w.finish();
            }
            case Message.FileDone d -> MessageWriter.of(MessageType.FILE_DONE).i32(d.fileId()).u8(d.verified() ? 1 : 0).string(clip(d.reason())).finish();
            case Message.Resend r -> MessageWriter.of(MessageType.RESEND).i32(r.fileId()).i32(r.block()).u8(r.placedBadly() ? 1 : 0).finish();
            case Message.Pull p -> {
                MessageWriter w = MessageWriter.of(MessageType.PULL).i64(p.copyId()).i32(p.blockSize()).u8(p.flags()).u16(p.sources().size());
                for (String s : p.sources()) w.string(s);
                yield w.finish();
            }
            case Message.End e -> MessageWriter.of(MessageType.END).finish();
            case Message.Summary s -> MessageWriter.of(MessageType.SUMMARY).i64(s.bytesWritten()).i32(s.repaired()).i32(s.hashesVerified())
                    .i32(s.skipped()).i32(s.deleted()).finish();
            case Message.Protect p -> {
                MessageWriter w = MessageWriter.of(MessageType.PROTECT).u16(p.globs().size());
                for (String g : p.globs()) w.string(g);
                yield w.finish();
            }
            case Message.Entry e -> throw new IllegalArgumentException("an entry travels in FILES");
            case Message.Segment s -> throw new IllegalArgumentException("a segment travels in CHUNK");
            case Message.FileEnd e -> throw new IllegalArgumentException("a file end travels in CHUNK");
        };
    }

    private static String clip(String s) {
        return s.length() > 1000 ? s.substring(0, 1000) : s;
    }

    /**
     * Decodes the {@code length} bytes received at the buffer's position.
     *
     * @throws MalformedMessageException naming the field that is wrong
     */
    public static Message decode(ByteBuffer b, int length) {
        MessageType t = MessageHeader.check(b, length);
        MessageReader r = new MessageReader(b, t);
        Message m = switch (t) {
            case HELLO -> new Message.Hello(r.i64("copyId"), r.string("destination"), r.count("blockSize", 1 << 30), r.u8("flags"));
            case READY -> new Message.Ready(r.count("slots", 1 << 20), r.count("slotSize", 1 << 30));
            case ERROR -> new Message.Error(r.string("reason"));
            case FILES -> files(r);
            case PLAN -> {
                int id = r.i32("fileId");
                int blocks = r.count("blocks", ControlLimits.MAX_BLOCKS);
                int n = r.count("bitmap.length", (blocks + 7) / 8);
                yield new Message.Plan(id, blocks, BitSet.valueOf(r.bytes(n, "bitmap")));
            }
            case GRANT -> new Message.Grant(r.count("slot", 1 << 20), r.i64("address"), r.i32("rkey"), r.count("length", 1 << 30));
            case CHUNK -> chunk(r);
            case FILE_DONE -> new Message.FileDone(r.i32("fileId"), r.u8("verified") == 1, r.string("reason"));
            case RESEND -> new Message.Resend(r.i32("fileId"), r.count("block", ControlLimits.MAX_BLOCKS), r.u8("placedBadly") == 1);
            case PULL -> pull(r);
            case END -> new Message.End();
            case SUMMARY -> new Message.Summary(r.i64("bytesWritten"), r.i32("repaired"), r.i32("hashesVerified"), r.i32("skipped"), r.i32("deleted"));
            case PROTECT -> protect(r);
        };
        r.end();
        return m;
    }

    private static Message.Files files(MessageReader r) {
        int n = r.u16("count");
        List<Message.Entry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int id = r.i32("id");
            int kind = r.u8("kind");
            if (kind >= Message.Kind.values().length) throw new MalformedMessageException("FILES.kind " + kind + " is unknown");
            String path = r.string("path");
            long size = r.i64("size");
            if (size < 0) throw new MalformedMessageException("FILES.size " + size + " is negative");
            out.add(new Message.Entry(id, Message.Kind.values()[kind], path, size, r.i32("mode"), r.i64("mtime"), r.string("target")));
        }
        return new Message.Files(out);
    }

    private static Message.Pull pull(MessageReader r) {
        long id = r.i64("copyId");
        int bs = r.count("blockSize", 1 << 30);
        int flags = r.u8("flags");
        int n = r.u16("sources");
        if (n == 0) throw new MalformedMessageException("PULL names no source");
        List<String> sources = new ArrayList<>(n);
        for (int i = 0; i < n; i++) sources.add(r.string("source"));
        return new Message.Pull(id, sources, bs, flags);
    }

    private static Message.Protect protect(MessageReader r) {
        int n = r.u16("globs");
        List<String> globs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String g = r.string("glob");
            try {
                java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + g);
            } catch (IllegalArgumentException e) {
                throw new MalformedMessageException("PROTECT.glob '" + g + "' is not a glob: " + e.getMessage().lines().findFirst().orElse(""));
            }
            globs.add(g);
        }
        return new Message.Protect(globs);
    }

    private static Message.Chunk chunk(MessageReader r) {
        int slot = r.i32("slot");
        if (slot < -1) throw new MalformedMessageException("CHUNK.slot " + slot + " is negative");
        int n = r.u16("segments");
        if (n > ControlLimits.MAX_SEGMENTS) throw new MalformedMessageException("CHUNK.segments " + n + ", at most " + ControlLimits.MAX_SEGMENTS);
        List<Message.Segment> segs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int id = r.i32("fileId");
            int block = r.count("block", ControlLimits.MAX_BLOCKS);
            int offset = r.count("offset", 1 << 30);
            int length = r.count("length", 1 << 30);
            int kind = r.u8("kind");
            if (kind > Message.HOLE) throw new MalformedMessageException("CHUNK.kind " + kind + " is unknown");
            if (kind == Message.DATA && slot < 0) throw new MalformedMessageException("CHUNK has a DATA segment but no window");
            segs.add(new Message.Segment(id, block, offset, length, kind, r.bytes(HASH, "hash")));
        }
        int e = r.u16("ends");
        if (e > ControlLimits.MAX_FILE_ENDS) throw new MalformedMessageException("CHUNK.ends " + e + ", at most " + ControlLimits.MAX_FILE_ENDS);
        List<Message.FileEnd> ends = new ArrayList<>(e);
        for (int i = 0; i < e; i++) ends.add(new Message.FileEnd(r.i32("fileId"), r.count("blocks", ControlLimits.MAX_BLOCKS), r.bytes(HASH, "digest")));
        return new Message.Chunk(slot, segs, ends);
    }
}
