package org.urdma.transport.link;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.packet.Payloads;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.EthernetHeader;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Icrc;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;

/**
 * One link end's wire format: positions the engine's {@link TxPacket} in a frame slot after the link and network
 * headers, wraps the transport section the engine wrote there (Ethernet/VLAN, GRH or IPv4/UDP, AFH, ICRC), and decodes
 * received frames into an {@link RxPacket} read in place. Only what differs per destination is set per packet (MAC,
 * GID/IP, UDP source port, priority); the local addresses are set once. For one thread.
 */
public final class LinkFraming {
    private final Framing framing;
    private final Framing decoder;
    private final FramingKind kind;
    /** Addressing of the frames we send: local fields set once, destination fields per packet. */
    private final Packet addr = new Packet();
    private final RxPacket rx = new RxPacket();
    private final TxPacket tx = new TxPacket();
    private final int transportOffset;
    private final boolean rh;
    private final boolean pcpFromTrafficClass;
    private final int icrcLength;
    private long decodeErrors;
    private DecodeStatus lastError = DecodeStatus.OK;

    /** Untagged frames, ECT(0), PAXI with its optional ICRC. */
    public LinkFraming(FramingKind kind, byte[] localMac, byte[] localGid) {
        this(kind, true, localMac, localGid, -1, 0, false, Ecn.ECT0);
    }

    /**
     * @param paxiIcrc            whether PAXI Standard/AFH1/AFH2 frames carry the optional ICRC (RoCE always does)
     * @param vlanId              802.1Q VLAN id of every frame, or -1 for untagged
     * @param pcp                 priority of tagged frames
     * @param pcpFromTrafficClass take the priority from the route's traffic class (class selector, tc >> 5)
     * @param ecn                 the ECN codepoint of RoCEv2 / PAXI Standard frames
     */
    public LinkFraming(FramingKind kind, boolean paxiIcrc, byte[] localMac, byte[] localGid, int vlanId, int pcp,
                       boolean pcpFromTrafficClass, Ecn ecn) {
        if (kind == FramingKind.PAXI_LITE) {
            throw new IllegalArgumentException("framing: paxi-lite has no RH; the engine needs roce1, roce2, paxi-standard, "
                    + "paxi-afh1 or paxi-afh2");
        }
        this.kind = kind;
        this.framing = Framings.of(kind, paxiIcrc);
        this.decoder = Framings.of(kind, paxiIcrc);
        this.rh = !kind.usesBth();
        this.pcpFromTrafficClass = pcpFromTrafficClass;
        this.icrcLength = framing.trailerMaxLength() - 3;
        addr.srcMac = mac(localMac);
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (localGid[i] & 0xFF);
            lo = (lo << 8) | (localGid[8 + i] & 0xFF);
        }
        addr.sgidHi = hi;
        addr.sgidLo = lo;
        addr.ipSrc = hi == 0 && (lo >>> 32) == 0xFFFF ? (int) lo : 0x0A000000 | (localMac[5] & 0xFF);
        addr.tos = ecn.bits();
        addr.srcXpu = (int) (addr.srcMac & 0xFFFF);
        if (vlanId >= 0) {
            addr.vlan = true;
            addr.vid = vlanId;
            addr.pcp = pcp;
        }
        this.transportOffset = framing.transportOffset(addr);
    }

    /** The framing that decodes received frames; its counters break the rejects down by reason. */
    public Framing decoder() {
        return decoder;
    }

    /** Frames this end rejected (bad ICRC, truncated, …). */
    public long decodeErrors() {
        return decodeErrors;
    }

    /** How frames carry payload: {@link Payloads#COPY} (the bytes) on every real link; a simulation may describe them. */
    public void payloads(Payloads p) {
        tx.payloads(p);
        rx.payloads(p);
    }

    /** ICRC offload for the frames this end sends (see {@link Framing#icrcOffload}). */
    public void txIcrcOffload(boolean on) {
        framing.icrcOffload(on);
    }

    /** Whether the frames this end sends leave the ICRC out. */
    public boolean icrcOffloaded() {
        return framing.icrcOffloaded();
    }

    /** The frame a packet of {@code opcode} with {@code payloadLength} bytes makes on this link (exact, or more for PAXI pads). */
    public int frameLength(int opcode, int payloadLength) {
        return Math.max(EthernetHeader.MIN_FRAME, transportOffset + TxPacket.sectionLength(opcode, payloadLength)
                - (rh ? 4 : 0) + icrcLength);
    }

    /** Where the payload of a packet of {@code opcode} starts in its frame (static header layout; URDMA headers add to it). */
    public int payloadOffset(int opcode) {
        return transportOffset + TxPacket.sectionLength(opcode, 0) - (rh ? 4 : 0);
    }

    /** Largest frame for a payload of {@code payloadLength} bytes, for sizing slots (every URDMA header counted). */
    public int maxFrameLength(int payloadLength) {
        return framing.maxFrameLength(payloadLength);
    }

    /** Whether this framing can carry the opcode at all (e.g. PAXI credit frames only on PAXI). */
    public boolean canCarry(int opcode) {
        return kind.canCarry(opcode) && OpcodeTable.known(opcode);
    }

    /** Positions the TX writer in the slot at {@code buffer[frameOffset..]}. */
    public TxPacket begin(MutableDirectBuffer buffer, int frameOffset) {
        return tx.wrap(buffer, frameOffset, frameOffset + transportOffset, rh);
    }

    /** Frames the packet written through {@code t} towards {@code route}; returns the frame length. */
    public int end(TxPacket t, Route route) {
        int sectionEnd = t.finish();
        Packet a = addr;
        a.dstMac = route.dstMac();
        a.dgidHi = route.dgidHi();
        a.dgidLo = route.dgidLo();
        a.ipDst = route.ipv4();
        int qpn = t.destQp();
        a.udpSrcPort = udpSourcePort(qpn);
        a.dstQpid = qpn & 0xFFFF;
        a.trafficClass = route.trafficClass();
        a.tos = (route.trafficClass() & ~3) | (a.tos & 3);
        if (pcpFromTrafficClass) a.pcp = (route.trafficClass() >>> 5) & 7;
        return framing.wrap(a, t.buffer(), t.frameOffset(), sectionEnd);
    }

    /** The RoCEv2 UDP source port of packets to {@code destQpn}: as Linux, 0xC000 + a hash of the QPN, so the QPs of one host pair spread over ECMP paths. */
    public static int udpSourcePort(int destQpn) {
        return 0xC000 | ((destQpn * 0x9E3779B1) >>> 18 & 0x3FFF);
    }

    /** Decodes a frame for the engine, or null when it is malformed (counted; {@link #lastError} says why). */
    public RxPacket decode(DirectBuffer frame, int offset, int length) {
        return decode(frame, offset, length, false);
    }

    /** As {@link #decode(DirectBuffer, int, int)}; {@code icrcOffloaded}: the sender left the ICRC out, do not check it. */
    public RxPacket decode(DirectBuffer frame, int offset, int length, boolean icrcOffloaded) {
        decoder.icrcOffload(icrcOffloaded);
        DecodeStatus st = decoder.decode(frame, offset, length, rx.frame());
        if (st != DecodeStatus.OK) {
            decodeErrors++;
            lastError = st;
            return null;
        }
        return rx.ready(); // a described payload's length comes from its description there
    }

    /** Why the last frame {@link #decode} refused was malformed. */
    public DecodeStatus lastError() {
        return lastError;
    }

    private static long mac(byte[] m) {
        long v = 0;
        for (int i = 0; i < 6; i++) v = (v << 8) | (m[i] & 0xFF);
        return v;
    }
}
