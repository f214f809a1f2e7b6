package org.urdma.transport.fuzz;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Bytes;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.EthernetHeader;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Icrc;
import org.urdma.transport.wire.Ipv4Header;
import org.urdma.transport.wire.Ipv6Header;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.SackEth;
import org.urdma.transport.wire.UdpHeader;

/**
 * Structure-aware mutation of valid frames of one wire format: decodes a frame with the wire codecs, changes one to
 * three header fields (every layer: Ethernet/VLAN, IPv4/IPv6/GRH, UDP, AFH, BTH/RH, each extended header, payload
 * length) and encodes it again with correct lengths, checksums and ICRC, so the mutation reaches the engine; or
 * changes raw bytes afterwards (bit flips re-sealed or not, ICRC, truncation, length fields, EtherType). Deterministic
 * for a given seed and input; no clocks. One thread.
 */
public final class FrameMutator {
    private static final Mutation[] STRUCTURED = {
        Mutation.ETH_ADDRESS, Mutation.VLAN, Mutation.IP_FIELDS, Mutation.WRONG_SOURCE, Mutation.IP_VERSION,
        Mutation.UDP_SOURCE_PORT, Mutation.GRH_FIELDS, Mutation.AFH_FIELDS, Mutation.OPCODE, Mutation.DEST_QP,
        Mutation.PKEY, Mutation.BTH_FLAGS, Mutation.PSN_NEAR, Mutation.PSN_FAR, Mutation.RETH, Mutation.AETH,
        Mutation.ATOMIC, Mutation.IMM_IETH, Mutation.DETH, Mutation.PAYLOAD_LENGTH, Mutation.URDMA_EXTENSION,
        Mutation.PSN_WINDOW, Mutation.WAN_HEADERS};
    private static final Mutation[] RAW = {
        Mutation.BIT_FLIP_SEALED, Mutation.BIT_FLIP, Mutation.BAD_ICRC, Mutation.TRUNCATE, Mutation.EXTEND,
        Mutation.LENGTH_FIELD, Mutation.ETHERTYPE, Mutation.UDP_DEST_PORT, Mutation.TRANSPORT_BYTE_SEALED,
        Mutation.TRANSPORT_BYTE_SEALED};
    /** Fields the engine acts on are chosen more often than the link/network ones. */
    private static final Mutation[] TRANSPORT_HEAVY = {
        Mutation.PSN_NEAR, Mutation.PSN_NEAR, Mutation.PSN_FAR, Mutation.PSN_WINDOW, Mutation.WAN_HEADERS, Mutation.OPCODE, Mutation.OPCODE, Mutation.RETH,
        Mutation.RETH, Mutation.AETH, Mutation.AETH, Mutation.AETH, Mutation.ATOMIC, Mutation.PAYLOAD_LENGTH,
        Mutation.DEST_QP, Mutation.PKEY, Mutation.BTH_FLAGS, Mutation.WRONG_SOURCE, Mutation.IMM_IETH, Mutation.DETH};

    private final FramingKind kind;
    private final boolean icrcOn;
    private final Framing codec;
    private final SplittableRandom random;
    private final Targets targets;
    private final Packet p = new Packet();
    private final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(16384));
    private final Icrc icrc = new Icrc(false);
    private Mutation last;
    private int badSackCount;
    private int mutationCount;

    /**
     * @param paxiIcrc whether PAXI Standard/AFH frames carry the optional ICRC (as the link under test does)
     */
    public FrameMutator(FramingKind kind, boolean paxiIcrc, SplittableRandom random, Targets targets) {
        if (kind == FramingKind.PAXI_LITE) throw new IllegalArgumentException("framing: paxi-lite has no transport header to mutate");
        this.kind = kind;
        this.icrcOn = kind.usesBth() || paxiIcrc;
        this.codec = Framings.of(kind, paxiIcrc, false);
        this.random = random;
        this.targets = targets;
    }

    /** The mutation applied by the last {@link #mutate} (the last of several when they were chained). */
    public Mutation last() {
        return last;
    }

    /** Mutations applied by the last {@link #mutate} call (1 to 4). */
    public int count() {
        return mutationCount;
    }

    /**
     * Writes a mutated copy of the valid frame {@code src[off, off + len)} to {@code dst[dstOff..]}, at most
     * {@code maxLen} bytes; returns its length.
     */
    public int mutate(DirectBuffer src, int off, int len, MutableDirectBuffer dst, int dstOff, int maxLen) {
        mutationCount = 0;
        int out = -1;
        if (random.nextInt(100) < 80) out = structured(src, off, len, dst, dstOff, maxLen);
        if (out < 0) {
            out = Math.min(len, maxLen);
            dst.putBytes(dstOff, src, off, out);
            return raw(dst, dstOff, out, maxLen);
        }
        // sometimes a raw change on top, so broken frames also carry unusual fields
        return random.nextInt(100) < 10 ? raw(dst, dstOff, out, maxLen) : out;
    }

    // ---------------------------------------------------------------- structured

    private int structured(DirectBuffer src, int off, int len, MutableDirectBuffer dst, int dstOff, int maxLen) {
        p.inPlace = false;
        if (codec.decode(src, off, len, p) != DecodeStatus.OK) return -1;
        payload.putBytes(0, p.payloadBuffer, p.payloadOffset, p.payloadLength);
        p.payloadBuffer = payload;
        p.payloadOffset = 0;
        badSackCount = 0;
        int n = 1 + (random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0);
        for (int i = 0; i < n; i++) {
            Mutation m;
            do {
                m = random.nextBoolean() ? TRANSPORT_HEAVY[random.nextInt(TRANSPORT_HEAVY.length)]
                    : STRUCTURED[random.nextInt(STRUCTURED.length)];
            } while (!applies(m));
            apply(m);
            last = m;
            mutationCount++;
        }
        if (codec.maxFrameLength(p.payloadLength) > maxLen && p.payloadLength > 0) {
            p.payloadLength = Math.max(0, p.payloadLength - (codec.maxFrameLength(p.payloadLength) - maxLen) - 4);
        }
        int out;
        try {
            out = codec.encode(p, dst, dstOff);
        } catch (IllegalArgumentException notFramable) {
            return -1; // a field combination no frame can carry: mutate the bytes instead
        }
        if (badSackCount != 0) pokeSackCount(dst, dstOff, out);
        return out;
    }

    private void pokeSackCount(MutableDirectBuffer b, int o, int len) {
        int count = badSackCount;
        badSackCount = 0;
        if (codec.decode(b, o, len, p) != DecodeStatus.OK || (p.headerMask & OpcodeTable.HDR_SACK) == 0) return;
        b.putByte(p.headerOffsets[OpcodeTable.index(OpcodeTable.HDR_SACK)], (byte) count);
        reseal(b, o, len);
    }

    /** Whether this wire format has the field the mutation changes. */
    private boolean applies(Mutation m) {
        boolean ip = kind == FramingKind.ROCE2 || kind == FramingKind.PAXI_STANDARD;
        boolean afh = kind == FramingKind.PAXI_AFH1 || kind == FramingKind.PAXI_AFH2;
        return switch (m) {
            case IP_FIELDS, UDP_SOURCE_PORT -> ip;
            case IP_VERSION -> kind == FramingKind.ROCE2;
            case GRH_FIELDS -> kind == FramingKind.ROCE1 || kind == FramingKind.ROCE2;
            case AFH_FIELDS -> afh;
            case PKEY, URDMA_EXTENSION, WAN_HEADERS -> kind.usesBth();
            default -> true;
        };
    }

    private void apply(Mutation m) {
        SplittableRandom r = random;
        switch (m) {
            case ETH_ADDRESS -> {
                if (r.nextBoolean()) p.dstMac = r.nextBoolean() ? 0xFFFF_FFFF_FFFFL : r.nextLong() & 0xFFFF_FFFF_FFFFL;
                else p.srcMac = pick(targets.foreignMacs);
            }
            case VLAN -> {
                p.vlan = !p.vlan || r.nextBoolean();
                p.pcp = r.nextInt(8);
                p.dei = r.nextBoolean();
                p.vid = r.nextInt(4096);
            }
            case IP_FIELDS -> {
                switch (r.nextInt(4)) {
                    case 0 -> p.tos = r.nextInt(256);
                    case 1 -> p.ttl = r.nextInt(256);
                    case 2 -> p.ipId = r.nextInt(65536);
                    default -> p.ipFlagsFragment = r.nextBoolean() ? 0x2000 | r.nextInt(8192) : r.nextInt(65536);
                }
            }
            case WRONG_SOURCE -> {
                p.srcMac = pick(targets.foreignMacs);
                p.ipSrc = pick(targets.foreignIps);
                p.sgidHi = 0;
                p.sgidLo = 0xFFFF_0000_0000L | (p.ipSrc & 0xFFFF_FFFFL);
                p.srcXpu = r.nextInt(65536);
            }
            case IP_VERSION -> {
                p.ipv6 = !p.ipv6;
                if (p.sgidHi == 0 && p.sgidLo == 0) p.sgidLo = 0xFFFF_0000_0000L | (p.ipSrc & 0xFFFF_FFFFL);
                if (p.dgidHi == 0 && p.dgidLo == 0) p.dgidLo = 0xFFFF_0000_0000L | (p.ipDst & 0xFFFF_FFFFL);
                p.hopLimit = r.nextInt(256);
            }
            case UDP_SOURCE_PORT -> p.udpSrcPort = r.nextInt(65536);
            case GRH_FIELDS -> {
                switch (r.nextInt(4)) {
                    case 0 -> p.trafficClass = r.nextInt(256);
                    case 1 -> p.flowLabel = r.nextInt(1 << 20);
                    case 2 -> p.hopLimit = r.nextInt(256);
                    default -> p.dgidLo ^= 1L << r.nextInt(64);
                }
            }
            case AFH_FIELDS -> {
                switch (r.nextInt(4)) {
                    case 0 -> p.afhTc = r.nextInt(256);
                    case 1 -> p.srcXpu = r.nextInt(65536);
                    case 2 -> p.opFlags = r.nextInt(256);
                    default -> p.dstQpid = r.nextInt(65536);
                }
            }
            case OPCODE -> p.opcode = r.nextInt(4) == 0 ? r.nextInt(256)
                : (p.opcode & 0xE0) | r.nextInt(0x18); // same transport, any operation: sequence and header errors
            case DEST_QP -> p.destQp = r.nextInt(4) == 0 ? r.nextInt(1 << 24)
                : (pick(targets.qpns) + (r.nextInt(8) == 0 ? r.nextInt(-1, 2) : 0)) & 0xFFFFFF;
            case PKEY -> p.pkey = r.nextBoolean() ? r.nextInt(65536) : (r.nextBoolean() ? 0x7FFF : 0x8001);
            case BTH_FLAGS -> {
                switch (r.nextInt(8)) {
                    case 0 -> p.se = !p.se;
                    case 1 -> p.migReq = !p.migReq;
                    case 2 -> p.tver = r.nextInt(16);
                    case 3 -> { p.fecn = r.nextBoolean(); p.becn = r.nextBoolean(); }
                    case 4 -> p.resv6 = r.nextInt(64);
                    case 5 -> p.resv7 = r.nextInt(128) & ~OpcodeTable.RESV7_URDMA;
                    case 6 -> p.vc = r.nextInt(8);
                    default -> p.ackReq = !p.ackReq;
                }
            }
            case PSN_NEAR -> p.psn = (p.psn + r.nextInt(-8, 9)) & 0xFFFFFF;
            case PSN_FAR -> p.psn = (p.psn + (1 << 23) + r.nextInt(-3, 4)) & 0xFFFFFF;
            case PSN_WINDOW -> p.psn = (p.psn + r.nextInt(1, (1 << 15) + 8)) & 0xFFFFFF;
            case WAN_HEADERS -> wanHeaders(r);
            case RETH -> {
                switch (r.nextInt(3)) {
                    case 0 -> p.rethVa = pick(targets.vas) + r.nextInt(-16, 17);
                    case 1 -> p.rethRkey = pick(targets.rkeys) ^ (r.nextInt(8) == 0 ? 1 << r.nextInt(32) : 0);
                    default -> p.rethDmaLength = switch (r.nextInt(4)) {
                        case 0 -> r.nextInt();
                        case 1 -> p.rethDmaLength + r.nextInt(-4, 5);
                        case 2 -> 0;
                        default -> r.nextInt(0, 70_000);
                    };
                }
            }
            case AETH -> {
                p.aethSyndrome = switch (r.nextInt(5)) {
                    case 0 -> Aeth.SYNDROME_ACK | r.nextInt(32);
                    case 1 -> Aeth.SYNDROME_RNR_NAK | r.nextInt(32);
                    case 2, 3 -> Aeth.SYNDROME_NAK | r.nextInt(5);
                    default -> r.nextInt(256);
                };
                if (r.nextBoolean()) p.aethMsn = r.nextInt(1 << 24);
                // stale (behind the oldest unacknowledged) or future (never sent) PSNs
                int shift = switch (r.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> -r.nextInt(1, 64);
                    case 2 -> r.nextInt(1, 64);
                    default -> r.nextInt(1 << 24);
                };
                p.psn = (p.psn + shift) & 0xFFFFFF;
            }
            case ATOMIC -> {
                switch (r.nextInt(4)) {
                    case 0 -> p.atomicVa = pick(targets.vas) + r.nextInt(-9, 10);
                    case 1 -> p.atomicRkey = pick(targets.rkeys);
                    case 2 -> { p.atomicSwapAdd = r.nextLong(); p.atomicCompare = r.nextLong(); }
                    default -> p.atomicAckOriginalData = r.nextLong();
                }
            }
            case IMM_IETH -> {
                if (r.nextBoolean()) p.immDt = r.nextInt();
                else p.iethRkey = pick(targets.rkeys);
            }
            case DETH -> {
                if (r.nextBoolean()) p.dethQkey = r.nextBoolean() ? r.nextInt() : p.dethQkey ^ 1;
                else p.dethSrcQp = r.nextInt(1 << 24);
            }
            case PAYLOAD_LENGTH -> {
                int l = switch (r.nextInt(4)) {
                    case 0 -> p.payloadLength + r.nextInt(-4, 5);
                    case 1 -> r.nextInt(0, 4097);
                    case 2 -> 0;
                    default -> (256 << r.nextInt(5)) + r.nextInt(-1, 2);
                };
                p.payloadLength = Math.clamp(l, 0, 4200);
            }
            case URDMA_EXTENSION -> {
                if (kind.usesBth()) {
                    p.resv7 ^= OpcodeTable.RESV7_URDMA;
                    p.uethFlags = r.nextInt(256);
                    p.sackCount = r.nextInt(4);
                    // a SACK header whose range count exceeds what the decoder allows (set after encoding)
                    badSackCount = r.nextInt(4) == 0 ? SackEth.MAX_RANGES + 1 + r.nextInt(255 - SackEth.MAX_RANGES) : 0;
                    if (badSackCount != 0) {
                        p.resv7 |= OpcodeTable.RESV7_URDMA;
                        p.uethFlags |= OpcodeTable.UETH_SACK;
                        p.opcode = (p.opcode & 0xE0) | Opcode.ACKNOWLEDGE;
                        p.payloadLength = 0;
                    }
                }
            }
            default -> throw new IllegalStateException("not a structured mutation: " + m);
        }
    }

    /** One WAN header field: a SACK range or the cumulative PSN, a FEC-ETH field, a timestamp. */
    private void wanHeaders(SplittableRandom r) {
        int shift = switch (r.nextInt(4)) {
            case 0 -> -r.nextInt(1, 5000);
            case 1 -> r.nextInt(1, 5000);
            case 2 -> r.nextInt(1 << 24);
            default -> 0;
        };
        switch (r.nextInt(6)) {
            case 0 -> {
                int i = r.nextInt(SackEth.MAX_RANGES);
                p.sackCount = Math.max(p.sackCount, i + 1);
                p.sackRangeStart[i] = (p.psn + shift) & 0xFFFFFF;
                p.sackRangeLength[i] = r.nextInt(256);
            }
            case 1 -> p.sackCumulativePsn = (p.sackCumulativePsn + shift) & 0xFFFFFF;
            case 2 -> p.fecBasePsn = (p.fecBasePsn + shift) & 0xFFFFFF;
            case 3 -> {
                p.fecM = r.nextInt(256);
                p.fecR = r.nextInt(256);
                p.fecIndex = r.nextInt(256);
            }
            case 4 -> p.fecLengthXor = r.nextBoolean() ? r.nextInt(65536) : p.fecLengthXor ^ 1;
            default -> {
                p.tsT1 = r.nextInt();
                p.aethExtT3 = r.nextInt();
                p.aethExtTs = r.nextInt();
                p.aethExtPsn = r.nextInt(1 << 24);
            }
        }
    }

    // ---------------------------------------------------------------- raw

    private int raw(MutableDirectBuffer b, int o, int len, int maxLen) {
        Mutation m = RAW[random.nextInt(RAW.length)];
        last = m;
        mutationCount++;
        SplittableRandom r = random;
        switch (m) {
            case BIT_FLIP_SEALED, BIT_FLIP -> {
                int flips = 1 + (r.nextInt(4) == 0 ? r.nextInt(8) : 0);
                // mostly in the headers, where flips change meaning rather than data
                int span = Math.min(len, r.nextBoolean() ? 96 : len);
                for (int i = 0; i < flips; i++) {
                    int at = o + r.nextInt(span);
                    b.putByte(at, (byte) (b.getByte(at) ^ (1 << r.nextInt(8))));
                }
                if (m == Mutation.BIT_FLIP_SEALED) reseal(b, o, len);
            }
            case BAD_ICRC -> {
                int at = icrcAt(b, o, len);
                if (at < 0) at = o + len - 4;
                at += r.nextInt(4);
                b.putByte(at, (byte) (b.getByte(at) ^ (1 + r.nextInt(255)))); // always a different byte
            }
            case TRUNCATE -> {
                return r.nextInt(4) == 0 ? r.nextInt(len) : Math.max(0, len - r.nextInt(1, 9));
            }
            case EXTEND -> {
                int extra = Math.min(maxLen - len, r.nextInt(1, 65));
                for (int i = 0; i < extra; i++) b.putByte(o + len + i, r.nextBoolean() ? 0 : (byte) r.nextInt());
                return len + extra;
            }
            case LENGTH_FIELD -> {
                int net = netOffset(b, o, len);
                if (net >= 0) {
                    int type = Bytes.u16(b, net - 2);
                    int at = type == EthernetHeader.TYPE_IPV4 ? (r.nextBoolean() ? net + 2 : net + Ipv4Header.LENGTH + 4)
                        : type == EthernetHeader.TYPE_IPV6 ? (r.nextBoolean() ? net + 4 : net + Ipv6Header.LENGTH + 4)
                        : net + 4; // GRH PayLen
                    if (at + 2 <= o + len) {
                        int v = Bytes.u16(b, at);
                        Bytes.u16(b, at, r.nextBoolean() ? (v + r.nextInt(-8, 9)) & 0xFFFF : r.nextInt(65536));
                    }
                    if (type == EthernetHeader.TYPE_IPV4 && net + Ipv4Header.LENGTH <= o + len) Ipv4Header.putChecksum(b, net);
                    if (r.nextBoolean()) reseal(b, o, len);
                }
            }
            case ETHERTYPE -> {
                int at = tagged(b, o, len) ? o + 16 : o + 12;
                int[] types = {EthernetHeader.TYPE_IPV4, EthernetHeader.TYPE_IPV6, EthernetHeader.TYPE_ROCE_V1,
                    EthernetHeader.TYPE_PAXI_AFH, EthernetHeader.TYPE_VLAN, r.nextInt(65536)};
                if (at + 2 <= o + len) Bytes.u16(b, at, types[r.nextInt(types.length)]);
            }
            case UDP_DEST_PORT -> {
                int net = netOffset(b, o, len);
                if (net >= 0 && (kind == FramingKind.ROCE2 || kind == FramingKind.PAXI_STANDARD)) {
                    int udp = net + (Bytes.u16(b, net - 2) == EthernetHeader.TYPE_IPV6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
                    if (udp + 4 <= o + len) Bytes.u16(b, udp + 2, r.nextBoolean() ? UdpHeader.ROCE_PORT ^ (1 << r.nextInt(16)) : r.nextInt(65536));
                    if (r.nextBoolean()) reseal(b, o, len);
                }
            }
            case TRANSPORT_BYTE_SEALED -> {
                int th = transportOffset(b, o, len);
                if (th >= 0 && th < o + len) {
                    int at = th + r.nextInt(Math.min(48, o + len - th));
                    // the opcode, flags and SACK count bytes are where the decoder's rules live
                    if (r.nextBoolean()) at = th + (r.nextBoolean() ? 0 : 1);
                    b.putByte(at, (byte) r.nextInt(256));
                    reseal(b, o, len);
                }
            }
            default -> throw new IllegalStateException("not a raw mutation: " + m);
        }
        return len;
    }

    private static boolean tagged(DirectBuffer b, int o, int len) {
        return len >= 16 && Bytes.u16(b, o + 12) == EthernetHeader.TYPE_VLAN;
    }

    /** Offset of the network header (IPv4/IPv6/GRH) or, for AFH formats, of the RH; -1 when the frame is too short. */
    private int netOffset(DirectBuffer b, int o, int len) {
        int at = o + 14 + (tagged(b, o, len) ? EthernetHeader.VLAN_TAG_LENGTH : 0);
        return at <= o + len ? at : -1;
    }

    /** Offset of the BTH/RH by the frame's own headers, or -1. */
    private int transportOffset(DirectBuffer b, int o, int len) {
        int net = netOffset(b, o, len);
        if (net < 0) return -1;
        return switch (kind) {
            case ROCE1 -> net + Ipv6Header.LENGTH;
            case ROCE2, PAXI_STANDARD -> net + UdpHeader.LENGTH
                + (Bytes.u16(b, net - 2) == EthernetHeader.TYPE_IPV6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
            default -> net;
        };
    }

    /** Where this frame's ICRC sits according to its own length fields, or -1. */
    private int icrcAt(DirectBuffer b, int o, int len) {
        if (!icrcOn) return -1;
        int net = netOffset(b, o, len);
        if (net < 0) return -1;
        int end = o + len;
        int at = switch (kind) {
            case ROCE1 -> net + Ipv6Header.LENGTH <= end ? net + Ipv6Header.LENGTH + Ipv6Header.payloadLength(b, net) - 4 : -1;
            case ROCE2, PAXI_STANDARD -> {
                int type = Bytes.u16(b, net - 2);
                if (type == EthernetHeader.TYPE_IPV4 && net + Ipv4Header.LENGTH <= end) yield net + Ipv4Header.totalLength(b, net) - 4;
                if (type == EthernetHeader.TYPE_IPV6 && net + Ipv6Header.LENGTH <= end) yield net + Ipv6Header.LENGTH + Ipv6Header.payloadLength(b, net) - 4;
                yield -1;
            }
            default -> end - 4;
        };
        return at > net && at + 4 <= end ? at : -1;
    }

    /** Recomputes the IPv4 checksum and the ICRC over what the frame's own headers now say. */
    private void reseal(MutableDirectBuffer b, int o, int len) {
        int net = netOffset(b, o, len);
        if (net < 0) return;
        int type = Bytes.u16(b, net - 2);
        if (type == EthernetHeader.TYPE_IPV4 && net + Ipv4Header.LENGTH <= o + len) Ipv4Header.putChecksum(b, net);
        int at = icrcAt(b, o, len);
        if (at < 0) return;
        int netKind;
        int from = net;
        boolean bth = kind.usesBth();
        switch (kind) {
            case ROCE1 -> netKind = Icrc.NET_GRH;
            case ROCE2, PAXI_STANDARD -> netKind = type == EthernetHeader.TYPE_IPV6 ? Icrc.NET_IPV6_UDP : Icrc.NET_IPV4_UDP;
            default -> netKind = Icrc.NET_NONE;
        }
        if (at - from < Icrc.prefixLength(netKind, bth)) return;
        Icrc.put(b, at, icrc.compute(b, from, netKind, bth, at));
    }

    private long pick(long[] a) {
        return a[random.nextInt(a.length)];
    }

    private int pick(int[] a) {
        return a[random.nextInt(a.length)];
    }
}
