package org.urdma.transport.engine;

import org.agrona.DirectBuffer;

/**
 * A reusable holder of one transport packet's fields as the engine sees them: BTH, the extended headers
 * and the payload as a view (buffer, offset, length). A {@link org.urdma.transport.link.Link} turns it into
 * a frame with the wire codecs and back. Only the fields the opcode uses are meaningful.
 */
public final class TransportPacket {
    // BTH
    public int opcode;
    public boolean solicited;
    public boolean ackReq;
    public int pkey = 0xFFFF;
    public int destQp;
    public int psn;
    public boolean fecn;
    public boolean becn;
    // RETH
    public long rethVa;
    public int rethRkey;
    public int rethLength;
    // AETH
    public int aethSyndrome;
    public int aethMsn;
    // AtomicETH / AtomicAckETH
    public long atomicVa;
    public int atomicRkey;
    public long atomicSwapAdd;
    public long atomicCompare;
    public long atomicOrig;
    // ImmDt, IETH, DETH
    public int immData;
    public int invalidateRkey;
    public int qkey;
    public int srcQp;
    // Addressing (GRH / IP / Ethernet); the link fills the source side on receive
    public final byte[] srcGid = new byte[16];
    public final byte[] dstGid = new byte[16];
    public final byte[] srcMac = new byte[6];
    public final byte[] dstMac = new byte[6];
    public int trafficClass;
    public int hopLimit = 64;
    public int flowLabel;
    // Payload view
    public DirectBuffer payload;
    public int payloadOffset;
    public int payloadLength;

    /** Clears per-packet fields (addressing arrays keep their contents). */
    public TransportPacket clear() {
        opcode = 0; solicited = false; ackReq = false; pkey = 0xFFFF; destQp = 0; psn = 0; fecn = false; becn = false;
        rethVa = 0; rethRkey = 0; rethLength = 0; aethSyndrome = 0; aethMsn = 0;
        atomicVa = 0; atomicRkey = 0; atomicSwapAdd = 0; atomicCompare = 0; atomicOrig = 0;
        immData = 0; invalidateRkey = 0; qkey = 0; srcQp = 0;
        payload = null; payloadOffset = 0; payloadLength = 0;
        return this;
    }

    @Override
    public String toString() {
        return "pkt[op=0x" + Integer.toHexString(opcode) + " qp=" + destQp + " psn=" + psn + (ackReq ? " A" : "")
                + " len=" + payloadLength + " aeth=0x" + Integer.toHexString(aethSyndrome) + "]";
    }
}
