package org.urdma.cli.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.MacControlFrame;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;

/**
 * Builds one valid frame for every opcode a framing can carry (ACKNOWLEDGE once per AETH kind), plus CNP,
 * PFC and PAUSE frames, with fields and payload sizes drawn from a seeded generator. Each frame comes with
 * the values it was built from, so tests can check what a third-party decoder reads back.
 */
public final class SampleFrames {
    /** Largest frame the generator makes (4096-byte payload plus headers). */
    public static final int MAX_FRAME = 4096 + 256;

    private static final int[] PAYLOAD_SIZES = {0, 1, 2, 3, 4, 5, 7, 64, 255, 1024, 1344, 4096};
    /** Payload sizes PAXI formats allow (WIRE.md §9: at most 1344 bytes a packet). */
    private static final int PAXI_MAX_PAYLOAD = 1344;

    /** Link rates a switch stamps, one (3 Gbit/s) that has no rate code. */
    private static final long[] INT_RATES = {1_000_000_000L, 10_000_000_000L, 25_000_000_000L, 40_000_000_000L,
        50_000_000_000L, 100_000_000_000L, 200_000_000_000L, 400_000_000_000L, 800_000_000_000L, 3_000_000_000L};

    /** One generated frame and the fields it was encoded from. */
    public record Sample(
        String kind,
        int opcode,
        int destQp,
        int psn,
        boolean ackReq,
        int headerMask,
        long rethVa,
        int rethRkey,
        int rethLength,
        int aethSyndrome,
        int aethMsn,
        long atomicVa,
        int atomicRkey,
        long atomicSwapAdd,
        long atomicCompare,
        long atomicAckOriginal,
        int immDt,
        int iethRkey,
        int dethQkey,
        int dethSrcQp,
        int payloadLength,
        int pfcClassEnable,
        int[] pfcQuanta,
        byte[] frame) {
        /** "PFC", "PAUSE" or the opcode's name. */
        public String label() {
            return kind;
        }

        public boolean has(final int header) {
            return (headerMask & header) != 0;
        }
    }

    private SampleFrames() {
    }

    /**
     * @param framing   the wire format
     * @param vlanPcp   802.1Q priority to tag every transport frame with, or -1 for untagged
     * @param vid       VLAN id used with {@code vlanPcp}
     * @param seed      seed for every varied field
     */
    public static List<Sample> generate(final FramingKind framing, final int vlanPcp, final int vid, final long seed) {
        return generate(framing, vlanPcp, vid, seed, false);
    }

    /**
     * As {@link #generate(FramingKind, int, int, long)}; with {@code urdma} (RoCEv1 and RoCEv2 only) also, per opcode, a
     * frame with the URDMA WAN-mode headers (random UETH flags, timestamps, SACK ranges) and on RoCEv2 one with an INT
     * stack of 0 to 5 random hops (the echo on responses), after the standard frames and before PFC and PAUSE.
     */
    public static List<Sample> generate(final FramingKind framing, final int vlanPcp, final int vid, final long seed,
                                        final boolean urdma) {
        final SplittableRandom rnd = new SplittableRandom(seed);
        final Framing codec = Framings.of(framing);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[MAX_FRAME]);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[4096]);
        final Packet p = new Packet();
        final List<Sample> out = new ArrayList<>();

        final long hostA = 0x02_00_00_00_00_00L | rnd.nextLong(1L << 40);
        final long hostB = 0x02_00_00_00_00_00L | rnd.nextLong(1L << 40);
        for (int opcode = 0; opcode < 256; opcode++) {
            if (!OpcodeTable.known(opcode) || !framing.canCarry(opcode)) {
                continue;
            }
            final int[] syndromes = OpcodeTable.has(opcode, OpcodeTable.ACK) && !OpcodeTable.has(opcode, OpcodeTable.READ)
                && opcode != Opcode.CNP ? aethVariants(opcode, rnd) : new int[] {-1};
            for (final int syndrome : syndromes) {
                fill(p, framing, opcode, rnd, payload, hostA, hostB, vlanPcp, vid);
                if (syndrome >= 0) {
                    p.aethSyndrome = syndrome;
                }
                final int length = codec.encode(p, frame, 0);
                out.add(record(Opcode.name(opcode), p, length, frame, 0, null));
            }
        }
        if (urdma && framing.usesBth()) {
            for (int opcode = 0; opcode < 256; opcode++) {
                if (!OpcodeTable.known(opcode) || !framing.canCarry(opcode) || opcode == Opcode.CNP) {
                    continue;
                }
                fill(p, framing, opcode, rnd, payload, hostA, hostB, vlanPcp, vid);
                wanHeaders(p, rnd);
                out.add(record(Opcode.name(opcode) + "+WAN", p, codec.encode(p, frame, 0), frame, 0, null));
                if (framing == FramingKind.ROCE2) {
                    fill(p, framing, opcode, rnd, payload, hostA, hostB, vlanPcp, vid);
                    if (rnd.nextInt(4) == 0) {
                        wanHeaders(p, rnd);
                    }
                    intStack(p, rnd, OpcodeTable.has(opcode, OpcodeTable.ACK));
                    out.add(record(Opcode.name(opcode) + "+INT", p, codec.encode(p, frame, 0), frame, 0, null));
                }
            }
        }
        // Flow control: PFC for a random set of priorities, and a PAUSE.
        final int[] quanta = new int[MacControlFrame.PRIORITIES];
        final int cev = 1 + rnd.nextInt(255);
        for (int i = 0; i < quanta.length; i++) {
            quanta[i] = rnd.nextInt(0x10000);
        }
        p.reset();
        int length = MacControlFrame.putPfc(frame, 0, hostA, cev, quanta);
        final int[] sent = new int[quanta.length];
        for (int i = 0; i < quanta.length; i++) {
            sent[i] = (cev & (1 << i)) != 0 ? quanta[i] : 0;
        }
        out.add(record("PFC", p, length, frame, cev, sent));
        final int pause = 1 + rnd.nextInt(0xFFFF);
        length = MacControlFrame.putPause(frame, 0, hostB, pause);
        out.add(record("PAUSE", p, length, frame, 0, new int[] {pause}));
        return out;
    }

    /** URDMA WAN-mode headers: random UETH flags (an ACKNOWLEDGE always with SACK ranges), timestamps. */
    private static void wanHeaders(final Packet p, final SplittableRandom rnd) {
        p.resv7 |= OpcodeTable.RESV7_URDMA;
        p.uethFlags = rnd.nextInt(16) << 4 | (p.opcode == Opcode.RC_ACKNOWLEDGE ? OpcodeTable.UETH_SACK : 0);
        p.tsT1 = rnd.nextInt();
        p.tsTr = rnd.nextInt();
        p.aethExtT3 = rnd.nextInt();
        p.aethExtTs = rnd.nextInt();
        p.aethExtPsn = rnd.nextInt(0x100_0000);
        p.sackCumulativePsn = rnd.nextInt(0x100_0000);
        p.sackCount = 1 + rnd.nextInt(4);
        for (int i = 0; i < p.sackCount; i++) {
            p.sackRangeStart[i] = rnd.nextInt(0x100_0000);
            p.sackRangeLength[i] = 1 + rnd.nextInt(255);
        }
    }

    /** An INT stack stamped by 0 to 5 switches with random queues, byte counts and times; an echo when asked. */
    private static void intStack(final Packet p, final SplittableRandom rnd, final boolean echo) {
        p.resv7 |= OpcodeTable.RESV7_INT;
        IntStack.putEmpty(p.intStack, 0);
        final int hops = rnd.nextInt(IntStack.MAX_HOPS + 1);
        for (int i = 0; i < hops; i++) {
            IntStack.push(p.intStack, 0, INT_RATES[rnd.nextInt(INT_RATES.length)], rnd.nextLong(1L << 24),
                rnd.nextLong(1L << 40), rnd.nextLong(1L << 40));
        }
        IntStack.echo(p.intStack, 0, echo);
    }

    private static int[] aethVariants(final int opcode, final SplittableRandom rnd) {
        if (opcode == Opcode.RC_ATOMIC_ACKNOWLEDGE) {
            return new int[] {Aeth.ack(rnd.nextInt(32))};
        }
        return new int[] {
            Aeth.ack(rnd.nextInt(32)),
            Aeth.rnrNak(1 + rnd.nextInt(31)),
            Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR),
            Aeth.nak(Aeth.NAK_INVALID_REQUEST),
            Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR),
            Aeth.nak(Aeth.NAK_REMOTE_OPERATIONAL_ERROR)};
    }

    private static void fill(
        final Packet p, final FramingKind framing, final int opcode, final SplittableRandom rnd,
        final MutableDirectBuffer payload, final long hostA, final long hostB, final int vlanPcp, final int vid) {
        p.reset();
        final boolean request = !OpcodeTable.has(opcode, OpcodeTable.ACK);
        p.srcMac = request ? hostA : hostB;
        p.dstMac = request ? hostB : hostA;
        if (vlanPcp >= 0) {
            p.vlan = true;
            p.pcp = vlanPcp;
            p.vid = vid;
        }
        // Documentation-only addresses (RFC 2544 benchmark range): these frames go to files, not networks.
        p.ipSrc = request ? 0xC612_0001 : 0xC612_0002;
        p.ipDst = request ? 0xC612_0002 : 0xC612_0001;
        p.ipId = rnd.nextInt(0x10000);
        if (framing.ecnCapable() && opcode != Opcode.CNP && rnd.nextBoolean()) {
            p.tos = 0x02; // ECT(0)
        }
        gid(p, framing, request ? hostA : hostB, request ? hostB : hostA);
        p.opcode = opcode;
        p.destQp = 1 + rnd.nextInt(0xFF_FFFF);
        p.psn = opcode == Opcode.CNP ? 0 : rnd.nextInt(0x100_0000);
        p.udpSrcPort = 0xC000 | (p.destQp & 0x3FFF);
        p.ackReq = OpcodeTable.has(opcode, OpcodeTable.REQ) && (OpcodeTable.has(opcode, OpcodeTable.END) || rnd.nextBoolean());
        p.se = OpcodeTable.has(opcode, OpcodeTable.END) && OpcodeTable.has(opcode, OpcodeTable.SEND) && rnd.nextBoolean();
        p.afhTc = rnd.nextInt(8) << 2;
        p.vc = p.afhTc >>> 2;
        p.srcXpu = rnd.nextInt(0x10000);
        p.dstQpid = p.destQp & 0xFFFF; // AFH2 convention (AnyFrameDecoder's auto rule)
        p.rethVa = rnd.nextLong();
        p.rethRkey = rnd.nextInt();
        p.rethDmaLength = 1 + rnd.nextInt(1 << 22);
        p.aethSyndrome = 0;
        p.aethMsn = rnd.nextInt(0x100_0000);
        p.atomicVa = rnd.nextLong() & ~7L;
        p.atomicRkey = rnd.nextInt();
        p.atomicSwapAdd = rnd.nextLong();
        p.atomicCompare = rnd.nextLong();
        p.atomicAckOriginalData = rnd.nextLong();
        p.immDt = rnd.nextInt();
        p.iethRkey = rnd.nextInt();
        p.dethQkey = opcode >= Opcode.TRANSPORT_UD && opcode < Opcode.CNP && rnd.nextInt(4) == 0 ? 0x8001_0000 : rnd.nextInt();
        p.dethSrcQp = 1 + rnd.nextInt(0xFF_FFFF);
        p.fecBasePsn = rnd.nextInt(0x100_0000);
        p.fecM = 4 + rnd.nextInt(28);
        p.fecR = 1 + rnd.nextInt(4);
        p.fecIndex = rnd.nextInt(p.fecR);
        p.fecLengthXor = rnd.nextInt(0x10000);
        for (int i = 0; i < p.cbfcCredits.length; i++) {
            p.cbfcCredits[i] = rnd.nextInt(0x10000);
        }
        int size = 0;
        if (OpcodeTable.has(opcode, OpcodeTable.PAYLOAD)) {
            size = PAYLOAD_SIZES[rnd.nextInt(PAYLOAD_SIZES.length)];
            if (framing.isPaxi()) {
                size = Math.min(size, PAXI_MAX_PAYLOAD);
            }
            if (framing == FramingKind.PAXI_LITE) {
                size = Math.max(size, 46 - 12 + 14); // Lite has no length field: stay above the 60-byte minimum
            }
            for (int i = 0; i < size; i++) {
                payload.putByte(i, (byte)rnd.nextInt(256));
            }
        }
        p.payloadBuffer = payload;
        p.payloadOffset = 0;
        p.payloadLength = size;
    }

    /** RoCEv1 GIDs: link-local fe80::/64 with the EUI-64 of each port's MAC (WIRE.md §2). */
    private static void gid(final Packet p, final FramingKind framing, final long srcMac, final long dstMac) {
        if (framing == FramingKind.ROCE1) {
            p.sgidHi = 0xFE80_0000_0000_0000L;
            p.sgidLo = eui64(srcMac);
            p.dgidHi = 0xFE80_0000_0000_0000L;
            p.dgidLo = eui64(dstMac);
        }
    }

    static long eui64(final long mac) {
        final long flipped = mac ^ 0x0200_0000_0000L;
        return ((flipped >>> 24) << 40) | (0xFFFEL << 24) | (flipped & 0xFF_FFFFL);
    }

    private static Sample record(
        final String kind, final Packet p, final int length, final UnsafeBuffer frame, final int cev, final int[] quanta) {
        final byte[] bytes = new byte[length];
        frame.getBytes(0, bytes);
        return new Sample(
            kind, p.opcode, p.destQp, p.psn, p.ackReq, p.headerMask, p.rethVa, p.rethRkey, p.rethDmaLength,
            p.aethSyndrome, p.aethMsn, p.atomicVa, p.atomicRkey, p.atomicSwapAdd, p.atomicCompare,
            p.atomicAckOriginalData, p.immDt, p.iethRkey, p.dethQkey, p.dethSrcQp, p.payloadLength, cev, quanta, bytes);
    }
}
