package org.urdma.transport.link;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.engine.TransportPacket;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Packet;

/**
 * The production {@link FrameCodec}: maps the engine's packet onto the wire {@link Packet} and runs a
 * {@link Framing} (RoCEv1, RoCEv2, PAXI), so every frame on a link is a real frame with a real ICRC.
 * One instance per link end and thread. The payload is copied once, by the framing, into the frame.
 */
public final class WireFrameCodec implements FrameCodec {
    /** Two framings: each keeps a cached view of the one buffer it works on (TX ring vs RX ring), no churn. */
    private final Framing framing;
    private final Framing decoder;
    /** Encode holder: every field the engine drives is set on each packet; the rest keep their defaults. */
    private final Packet out = new Packet();
    /** Decode holder: separate, so nothing a received frame sets can leak into a frame we send. */
    private final Packet in = new Packet();
    private final long localMac;
    private final int localIp;
    private final long localGidHi;
    private final long localGidLo;
    private long decodeErrors;

    /**
     * @param localMac the sending port's MAC (6 bytes)
     * @param localGid the port's GID (16 bytes; for RoCEv2 an IPv4-mapped GID gives the IP address)
     */
    public WireFrameCodec(FramingKind kind, byte[] localMac, byte[] localGid) {
        this(kind, true, localMac, localGid);
    }

    /** @param paxiIcrc whether PAXI Standard/AFH1/AFH2 frames carry the optional ICRC (RoCE always does) */
    public WireFrameCodec(FramingKind kind, boolean paxiIcrc, byte[] localMac, byte[] localGid) {
        this.framing = Framings.of(kind, paxiIcrc);
        this.decoder = Framings.of(kind, paxiIcrc);
        this.localMac = mac(localMac, 0);
        this.localGidHi = be64(localGid, 0);
        this.localGidLo = be64(localGid, 8);
        this.localIp = ipv4Of(localGid, localMac);
    }

    public FramingKind kind() {
        return framing.kind();
    }

    public Framing framing() {
        return framing;
    }

    @Override
    public int maxFrameLength(int payloadLength) {
        return framing.maxFrameLength(payloadLength);
    }

    /**
     * Upper bound of the frame for one packet: its opcode's own headers (network header sized for IPv6, VLAN tag
     * counted) rather than every extension header any opcode could carry, so a full 4096-byte payload fits the
     * MTU 4200 that rxe uses for path MTU 4096. Opcodes with a SACK-ETH (variable length) keep the overall bound.
     */
    public int maxFrameLength(int opcode, int payloadLength) {
        int mask = org.urdma.transport.wire.OpcodeTable.mask(opcode);
        if (mask < 0 || (mask & org.urdma.transport.wire.OpcodeTable.HDR_SACK) != 0) return framing.maxFrameLength(payloadLength);
        return Math.min(framing.maxFrameLength(payloadLength),
                Math.max(60, framing.headerLength(opcode, true) + payloadLength + framing.trailerMaxLength()));
    }

    @Override
    public int encode(TransportPacket t, MutableDirectBuffer frame, int offset) {
        Packet p = out;
        p.srcMac = localMac;
        p.dstMac = mac(t.dstMac, 0);
        p.sgidHi = localGidHi;
        p.sgidLo = localGidLo;
        p.dgidHi = be64(t.dstGid, 0);
        p.dgidLo = be64(t.dstGid, 8);
        p.ipSrc = localIp;
        p.ipDst = ipv4Of(t.dstGid, t.dstMac);
        p.trafficClass = t.trafficClass;
        p.flowLabel = t.flowLabel;
        p.hopLimit = t.hopLimit;
        p.udpSrcPort = 0xC000 | ((t.destQp * 0x9E3779B1) >>> 18 & 0x3FFF);
        p.dstQpid = t.destQp & 0xFFFF;
        p.opcode = t.opcode;
        p.se = t.solicited;
        p.pkey = t.pkey;
        p.fecn = t.fecn;
        p.becn = t.becn;
        p.destQp = t.destQp;
        p.ackReq = t.ackReq;
        p.psn = t.psn;
        p.rethVa = t.rethVa;
        p.rethRkey = t.rethRkey;
        p.rethDmaLength = t.rethLength;
        p.aethSyndrome = t.aethSyndrome;
        p.aethMsn = t.aethMsn;
        p.atomicVa = t.atomicVa;
        p.atomicRkey = t.atomicRkey;
        p.atomicSwapAdd = t.atomicSwapAdd;
        p.atomicCompare = t.atomicCompare;
        p.atomicAckOriginalData = t.atomicOrig;
        p.immDt = t.immData;
        p.iethRkey = t.invalidateRkey;
        p.dethQkey = t.qkey;
        p.dethSrcQp = t.srcQp;
        p.payloadBuffer = t.payload;
        p.payloadOffset = t.payloadOffset;
        p.payloadLength = t.payloadLength;
        if (!framing.kind().canCarry(t.opcode)) return -1;
        return framing.encode(p, frame, offset);
    }

    @Override
    public boolean decode(DirectBuffer frame, int offset, int length, TransportPacket t) {
        Packet p = in;
        if (decoder.decode(frame, offset, length, p) != DecodeStatus.OK) {
            decodeErrors++;
            return false;
        }
        t.opcode = p.opcode;
        t.solicited = p.se;
        t.ackReq = p.ackReq;
        t.pkey = p.pkey;
        t.destQp = p.destQp;
        t.psn = p.psn;
        t.fecn = p.fecn;
        t.becn = p.becn;
        t.rethVa = p.rethVa;
        t.rethRkey = p.rethRkey;
        t.rethLength = p.rethDmaLength;
        t.aethSyndrome = p.aethSyndrome;
        t.aethMsn = p.aethMsn;
        t.atomicVa = p.atomicVa;
        t.atomicRkey = p.atomicRkey;
        t.atomicSwapAdd = p.atomicSwapAdd;
        t.atomicCompare = p.atomicCompare;
        t.atomicOrig = p.atomicAckOriginalData;
        t.immData = p.immDt;
        t.invalidateRkey = p.iethRkey;
        t.qkey = p.dethQkey;
        t.srcQp = p.dethSrcQp;
        t.trafficClass = p.trafficClass;
        t.flowLabel = p.flowLabel;
        t.hopLimit = p.hopLimit;
        if (framing.kind() == FramingKind.ROCE1 || p.ipv6) {
            putBe64(t.srcGid, 0, p.sgidHi);
            putBe64(t.srcGid, 8, p.sgidLo);
            putBe64(t.dstGid, 0, p.dgidHi);
            putBe64(t.dstGid, 8, p.dgidLo);
        } else {
            mapped(t.srcGid, p.ipSrc);
            mapped(t.dstGid, p.ipDst);
        }
        putMac(t.srcMac, p.srcMac);
        putMac(t.dstMac, p.dstMac);
        t.payload = p.payloadBuffer;
        t.payloadOffset = p.payloadOffset;
        t.payloadLength = p.payloadLength;
        return true;
    }

    /** The framing that decodes received frames; its counters break the rejects down by reason. */
    public Framing decoder() {
        return decoder;
    }

    /** Frames this codec rejected (bad ICRC, truncated, …); the framing's counters break them down. */
    public long decodeErrors() {
        return decodeErrors;
    }

    /** Big-endian views of the packet's byte arrays: one load instead of a byte loop per field, on every packet. */
    private static final java.lang.invoke.VarHandle BE_LONG =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle BE_INT =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle BE_SHORT =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(short[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private static long mac(byte[] m, int o) {
        return ((long) (int) BE_INT.get(m, o) & 0xFFFF_FFFFL) << 16 | ((short) BE_SHORT.get(m, o + 4) & 0xFFFF);
    }

    private static void putMac(byte[] m, long v) {
        BE_INT.set(m, 0, (int) (v >>> 16));
        BE_SHORT.set(m, 4, (short) v);
    }

    private static long be64(byte[] b, int o) {
        return (long) BE_LONG.get(b, o);
    }

    private static void putBe64(byte[] b, int o, long v) {
        BE_LONG.set(b, o, v);
    }

    private static void mapped(byte[] gid, int ip) {
        BE_LONG.set(gid, 0, 0L);
        BE_INT.set(gid, 8, 0xFFFF);
        BE_INT.set(gid, 12, ip);
    }

    /** The IPv4 address of an IPv4-mapped GID; otherwise 10.0.0.x from the MAC's last byte (in-memory links). */
    private static int ipv4Of(byte[] gid, byte[] mac) {
        // ::ffff:a.b.c.d: ten zero bytes, then 0xFFFF
        if ((long) BE_LONG.get(gid, 0) == 0 && (int) BE_INT.get(gid, 8) == 0xFFFF) {
            return (int) BE_INT.get(gid, 12);
        }
        return 0x0A000000 | (mac[5] & 0xFF);
    }
}
