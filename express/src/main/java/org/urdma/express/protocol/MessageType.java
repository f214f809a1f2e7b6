package org.urdma.express.protocol;

/** The control messages, by their code on the wire. */
public enum MessageType {
    /** Client to server: what to do and where. */
    HELLO(1),
    /** Server to client: the session is open. */
    READY(2),
    /** Either way: a one-line reason; the session ends. */
    ERROR(3),
    /** Client to server: a batch of tree entries. */
    FILES(4),
    /** Server to client: which blocks of a file it already holds durably. */
    PLAN(5),
    /** Server to client: a staging window the client may WRITE into. */
    GRANT(6),
    /** Client to server: what the WRITE into a window carried (segments, hashes) and files whose last block went. */
    CHUNK(7),
    /** Server to client: a file (or link) is verified at its place, or failed with a reason. */
    FILE_DONE(8),
    /** Server to client: a block's hash did not match; send it again. */
    RESEND(9),
    /** Client to server: every file is done; apply the directories' metadata. */
    END(10),
    /** Server to client: the session's counts, last message. */
    SUMMARY(11),
    /** Client to server: send these paths (under the served root) to me; the server then runs the copy as its client. */
    PULL(12),
    /** Client to server, after HELLO with DELETE: globs of names deletion leaves alone (the client's excludes). */
    PROTECT(13);

    private static final MessageType[] BY_CODE = new MessageType[16];

    static {
        for (MessageType t : values()) BY_CODE[t.code] = t;
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** {@return the type with this code, or null} */
    public static MessageType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
