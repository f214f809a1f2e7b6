package org.urdma.transport.gsi;

/** ConnectReject (IBTA Table 108): which message is refused and why. */
public final class CmRej extends CmMessage {
    /** Message rejected: REQ 0, REP 1, other 2. */
    public static final int REJECTED_REQ = 0;
    public static final int REJECTED_REP = 1;
    public static final int REJECTED_OTHER = 2;
    // reasons (IBTA Table 109; the kernel's enum ib_cm_rej_reason)
    public static final int NO_QP = 1;
    public static final int NO_RESOURCES = 3;
    public static final int TIMEOUT = 4;
    public static final int UNSUPPORTED = 5;
    public static final int INVALID_COMM_ID = 6;
    public static final int INVALID_SERVICE_ID = 8;
    public static final int INVALID_TRANSPORT_TYPE = 9;
    public static final int STALE_CONN = 10;
    public static final int INVALID_GID = 12;
    public static final int INVALID_MTU = 26;
    public static final int CONSUMER_DEFINED = 28;
    public static final int INVALID_CLASS_VERSION = 31;

    @Override
    public int attributeId() {
        return CmAttribute.REJ;
    }

    @Override
    protected int privateDataOffset() {
        return 84;
    }

    @Override
    public int privateDataLength() {
        return 148;
    }

    public int localCommId() { return i32(0); }
    public CmRej localCommId(int v) { i32(0, v); return this; }
    public int remoteCommId() { return i32(4); }
    public CmRej remoteCommId(int v) { i32(4, v); return this; }
    public int messageRejected() { return bits(8, 0, 2); }
    public CmRej messageRejected(int v) { bits(8, 0, 2, v); return this; }
    public int rejectedInfoLength() { return bits(9, 0, 7); }
    public CmRej rejectedInfoLength(int v) { bits(9, 0, 7, v); return this; }
    public int reason() { return u16(10); }
    public CmRej reason(int v) { u16(10, v); return this; }

    public static String reasonName(int r) {
        return switch (r) {
            case NO_QP -> "no QP";
            case NO_RESOURCES -> "no resources";
            case TIMEOUT -> "timeout";
            case UNSUPPORTED -> "unsupported request";
            case INVALID_COMM_ID -> "invalid communication ID";
            case INVALID_SERVICE_ID -> "invalid service ID (nobody listens)";
            case INVALID_TRANSPORT_TYPE -> "invalid transport type";
            case STALE_CONN -> "stale connection";
            case INVALID_GID -> "invalid GID";
            case INVALID_MTU -> "invalid MTU";
            case CONSUMER_DEFINED -> "consumer defined (refused by the application)";
            case INVALID_CLASS_VERSION -> "invalid class version";
            default -> "reason " + r;
        };
    }
}
