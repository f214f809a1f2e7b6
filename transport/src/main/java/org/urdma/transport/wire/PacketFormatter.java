package org.urdma.transport.wire;

/**
 * Human-readable text of a decoded {@link Packet} for tools ({@code urdma wire decode}, logs, test messages).
 * Allocates; not for the data path.
 */
public final class PacketFormatter {
    private PacketFormatter() {
    }

    /** One line, e.g. {@code roce2 10.77.0.3 > 10.77.0.2 RC_SEND_FIRST qp=0x000011 psn=0x8fff2e pad=0 len=1024}. */
    public static String summary(final Packet p) {
        final StringBuilder sb = new StringBuilder(128);
        sb.append(p.framing == null ? "?" : p.framing.cliName()).append(' ');
        if (p.framing == FramingKind.ROCE2 || p.framing == FramingKind.PAXI_STANDARD) {
            if (p.ipv6) {
                gid(sb, p.sgidHi, p.sgidLo).append(" > ");
                gid(sb, p.dgidHi, p.dgidLo);
            } else {
                sb.append(Ipv4Header.addressToString(p.ipSrc)).append(" > ").append(Ipv4Header.addressToString(p.ipDst));
            }
        } else if (p.framing == FramingKind.ROCE1) {
            gid(sb, p.sgidHi, p.sgidLo).append(" > ");
            gid(sb, p.dgidHi, p.dgidLo);
        } else {
            sb.append(EthernetHeader.macToString(p.srcMac)).append(" > ").append(EthernetHeader.macToString(p.dstMac));
        }
        sb.append(' ').append(Opcode.name(p.opcode));
        sb.append(String.format(" qp=0x%06x psn=0x%06x", p.destQp, p.psn));
        if (p.framing != FramingKind.PAXI_LITE) {
            sb.append(" pad=").append(p.padCnt);
        }
        sb.append(" len=").append(p.payloadLength);
        if ((p.headerMask & OpcodeTable.HDR_AETH) != 0) {
            sb.append(' ').append(aeth(p.aethSyndrome)).append(" msn=").append(p.aethMsn);
        }
        if (p.vlan) {
            sb.append(" vlan=").append(p.vid).append(" pcp=").append(p.pcp);
        }
        return sb.toString();
    }

    /** Every field the packet's headers carry, one header per line. */
    public static String detail(final Packet p) {
        final StringBuilder sb = new StringBuilder(512);
        sb.append(summary(p)).append('\n');
        sb.append("  eth dst=").append(EthernetHeader.macToString(p.dstMac)).append(" src=")
            .append(EthernetHeader.macToString(p.srcMac));
        if (p.vlan) {
            sb.append(" vlan pcp=").append(p.pcp).append(" dei=").append(p.dei ? 1 : 0).append(" vid=").append(p.vid);
        }
        sb.append('\n');
        final FramingKind k = p.framing;
        if (k == FramingKind.ROCE1 || ((k == FramingKind.ROCE2 || k == FramingKind.PAXI_STANDARD) && p.ipv6)) {
            sb.append(k == FramingKind.ROCE1 ? "  grh" : "  ipv6").append(" tclass=").append(p.trafficClass)
                .append(" flow=").append(p.flowLabel).append(" hop=").append(p.hopLimit).append('\n');
        } else if (k == FramingKind.ROCE2 || k == FramingKind.PAXI_STANDARD) {
            sb.append(String.format("  ipv4 tos=0x%02x ttl=%d id=0x%04x flags=0x%04x%n", p.tos, p.ttl, p.ipId,
                p.ipFlagsFragment));
        }
        if (k == FramingKind.ROCE2 || k == FramingKind.PAXI_STANDARD) {
            sb.append(String.format("  udp sport=%d checksum=0x%04x%n", p.udpSrcPort, p.udpChecksum));
        }
        if (k == FramingKind.PAXI_AFH1 || k == FramingKind.PAXI_AFH2 || k == FramingKind.PAXI_LITE) {
            sb.append(String.format("  afh tc=0x%02x src_xpu=0x%04x opflags=0x%02x dst_qpid=0x%04x%n", p.afhTc,
                p.srcXpu, p.opFlags, p.dstQpid));
        }
        if (k != null && k.usesBth()) {
            sb.append(String.format("  bth se=%d migreq=%d pad=%d tver=%d pkey=0x%04x fecn=%d becn=%d ackreq=%d " +
                "resv7=0x%02x%n", p.se ? 1 : 0, p.migReq ? 1 : 0, p.padCnt, p.tver, p.pkey, p.fecn ? 1 : 0,
                p.becn ? 1 : 0, p.ackReq ? 1 : 0, p.resv7));
        } else if (k != FramingKind.PAXI_LITE) {
            sb.append(String.format("  rh se=%d ackreq=%d vc=%d pad=%d%n", p.se ? 1 : 0, p.ackReq ? 1 : 0, p.vc,
                p.padCnt));
        }
        final int m = p.headerMask;
        if ((m & OpcodeTable.HDR_UETH) != 0) {
            sb.append(String.format("  ueth flags=0x%02x%n", p.uethFlags));
        }
        if ((m & OpcodeTable.HDR_TS) != 0) {
            sb.append(String.format("  ts t1=%d tr=%d%n", p.tsT1 & 0xFFFF_FFFFL, p.tsTr & 0xFFFF_FFFFL));
        }
        if ((m & OpcodeTable.HDR_DETH) != 0) {
            sb.append(String.format("  deth qkey=0x%08x srcqp=0x%06x%n", p.dethQkey, p.dethSrcQp));
        }
        if ((m & OpcodeTable.HDR_RETH) != 0) {
            sb.append(String.format("  reth va=0x%016x rkey=0x%08x len=%d%n", p.rethVa, p.rethRkey,
                p.rethDmaLength & 0xFFFF_FFFFL));
        }
        if ((m & OpcodeTable.HDR_AETH) != 0) {
            sb.append(String.format("  aeth syndrome=0x%02x (%s) msn=%d%n", p.aethSyndrome, aeth(p.aethSyndrome),
                p.aethMsn));
        }
        if ((m & OpcodeTable.HDR_AETH_EXT) != 0) {
            sb.append(String.format("  aeth-ext t3=%d ts=%d psn=0x%06x%n", p.aethExtT3 & 0xFFFF_FFFFL,
                p.aethExtTs & 0xFFFF_FFFFL, p.aethExtPsn));
        }
        if ((m & OpcodeTable.HDR_SACK) != 0) {
            sb.append(String.format("  sack cumulative=0x%06x ranges=%d", p.sackCumulativePsn, p.sackCount));
            for (int i = 0; i < p.sackCount; i++) {
                sb.append(String.format(" [0x%06x+%d]", p.sackRangeStart[i], p.sackRangeLength[i]));
            }
            sb.append('\n');
        }
        if ((m & OpcodeTable.HDR_ATOMIC_ETH) != 0) {
            sb.append(String.format("  atomiceth va=0x%016x rkey=0x%08x swap_add=0x%016x compare=0x%016x%n",
                p.atomicVa, p.atomicRkey, p.atomicSwapAdd, p.atomicCompare));
        }
        if ((m & OpcodeTable.HDR_ATOMIC_ACK_ETH) != 0) {
            sb.append(String.format("  atomicacketh orig=0x%016x%n", p.atomicAckOriginalData));
        }
        if ((m & OpcodeTable.HDR_IMMDT) != 0) {
            sb.append(String.format("  immdt 0x%08x%n", p.immDt));
        }
        if ((m & OpcodeTable.HDR_IETH) != 0) {
            sb.append(String.format("  ieth rkey=0x%08x%n", p.iethRkey));
        }
        if ((m & OpcodeTable.HDR_FEC_ETH) != 0) {
            sb.append(String.format("  fec-eth base=0x%06x m=%d r=%d index=%d len_xor=0x%04x%n", p.fecBasePsn,
                p.fecM, p.fecR, p.fecIndex, p.fecLengthXor));
        }
        if ((m & OpcodeTable.HDR_CBFC) != 0) {
            sb.append("  cbfc credits=").append(java.util.Arrays.toString(p.cbfcCredits)).append('\n');
        }
        if (k == FramingKind.ROCE2 && (p.resv7 & OpcodeTable.RESV7_INT) != 0) {
            int hops = IntStack.hops(p.intStack, 0);
            sb.append(String.format("  int %s hops=%d", IntStack.echo(p.intStack, 0) ? "echo" : "stamped", hops));
            for (int i = 0; i < hops; i++) {
                sb.append(String.format(" [rate=%dG qlen=%d tx=%d t=%d]", IntStack.rateBps(p.intStack, 0, i) / 1_000_000_000L,
                    IntStack.queueBytes(p.intStack, 0, i), IntStack.txUnits(p.intStack, 0, i) * IntStack.UNIT,
                    IntStack.timeNs(p.intStack, 0, i)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** {@code ACK credits=31}, {@code RNR_NAK timer=14 (1280 us)}, {@code NAK PSN_SEQUENCE_ERROR}. */
    public static String aeth(final int syndrome) {
        final int v = Aeth.value(syndrome);
        return switch (Aeth.type(syndrome)) {
            case Aeth.TYPE_ACK -> "ACK credits=" + v;
            case Aeth.TYPE_RNR_NAK -> "RNR_NAK timer=" + v + " (" + Aeth.rnrTimerMicros(v) + " us)";
            case Aeth.TYPE_NAK -> "NAK " + switch (v) {
                case Aeth.NAK_PSN_SEQUENCE_ERROR -> "PSN_SEQUENCE_ERROR";
                case Aeth.NAK_INVALID_REQUEST -> "INVALID_REQUEST";
                case Aeth.NAK_REMOTE_ACCESS_ERROR -> "REMOTE_ACCESS_ERROR";
                case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> "REMOTE_OPERATIONAL_ERROR";
                case Aeth.NAK_INVALID_RD_REQUEST -> "INVALID_RD_REQUEST";
                default -> "code=" + v;
            };
            default -> "RESERVED value=" + v;
        };
    }

    private static StringBuilder gid(final StringBuilder sb, final long hi, final long lo) {
        if (hi == 0 && (lo >>> 32) == 0xFFFF) {
            return sb.append("::ffff:").append(Ipv4Header.addressToString((int)lo));
        }
        for (int i = 0; i < 8; i++) {
            final long word = ((i < 4 ? hi : lo) >>> (48 - 16 * (i & 3))) & 0xFFFF;
            sb.append(i == 0 ? "" : ":").append(Long.toHexString(word));
        }
        return sb;
    }
}
