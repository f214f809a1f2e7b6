package org.urdma.transport.gsi;

/** Attribute IDs of the CM class (IBTA Table 104) and the names Wireshark shows for them. */
public final class CmAttribute {
    public static final int CLASS_PORT_INFO = 0x0001;
    public static final int REQ = 0x0010;
    public static final int MRA = 0x0011;
    public static final int REJ = 0x0012;
    public static final int REP = 0x0013;
    public static final int RTU = 0x0014;
    public static final int DREQ = 0x0015;
    public static final int DREP = 0x0016;
    public static final int SIDR_REQ = 0x0017;
    public static final int SIDR_REP = 0x0018;
    public static final int LAP = 0x0019;
    public static final int APR = 0x001A;

    private CmAttribute() {
    }

    public static String name(int id) {
        return switch (id) {
            case CLASS_PORT_INFO -> "ClassPortInfo";
            case REQ -> "ConnectRequest";
            case MRA -> "MsgRcptAck";
            case REJ -> "ConnectReject";
            case REP -> "ConnectReply";
            case RTU -> "ReadyToUse";
            case DREQ -> "DisconnectRequest";
            case DREP -> "DisconnectReply";
            case SIDR_REQ -> "ServiceIDResReq";
            case SIDR_REP -> "ServiceIDResReqResp";
            case LAP -> "LoadAlternatePath";
            case APR -> "AlternatePathResponse";
            default -> String.format("attribute 0x%04x", id);
        };
    }
}
