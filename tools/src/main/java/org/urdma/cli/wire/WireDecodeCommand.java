package org.urdma.cli.wire;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.FrameClass;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.MacControlFrame;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.PacketFormatter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code urdma wire decode}: decodes every frame of a pcap with urdma's own codecs, one line per frame, and
 * exits 1 when any RoCE/PAXI frame is invalid (bad ICRC, truncated, ...). Frames of other protocols (ARP,
 * IPv6 neighbour discovery, ...) are listed as "other" and are not errors.
 */
@Command(
    name = "decode",
    mixinStandardHelpOptions = true,
    description = {
        "Decode a pcap or pcapng capture with urdma's codecs: one line per frame (framing, opcode, QPN, PSN, ICRC ok/bad).",
        "Exit status 1 if any RoCE/PAXI frame is invalid, 2 on a usage or file error."})
public final class WireDecodeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE.pcap", description = "capture to decode (libpcap or pcapng, Ethernet)")
    Path file;

    @Option(names = "--afh", paramLabel = "paxi-afh1|paxi-afh2",
        description = "how to read EtherType 0x88B5 frames (default: auto, see AnyFrameDecoder)")
    String afh;

    @Option(names = "--lite", description = "the capture is PAXI AFH_Lite (no EtherType; every non-MAC-control frame)")
    boolean lite;

    @Option(names = "--no-paxi-icrc", description = "PAXI frames carry no ICRC")
    boolean noPaxiIcrc;

    @Option(names = {"-q", "--quiet"}, description = "print only invalid frames and the summary")
    boolean quiet;

    @Option(names = {"-v", "--detail"},
        description = "under each valid RoCE/PAXI frame's line, every header's fields (INT stack hops, WAN-mode headers)")
    boolean detail;

    @Override
    public Integer call() throws Exception {
        FramingKind afhHint = null;
        if (afh != null) {
            try {
                afhHint = FramingKind.parse(afh);
            } catch (final IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--afh: " + e.getMessage());
            }
            if (afhHint != FramingKind.PAXI_AFH1 && afhHint != FramingKind.PAXI_AFH2) {
                throw new ParameterException(spec.commandLine(), "--afh: must be paxi-afh1 or paxi-afh2, was " + afh);
            }
        }
        if (!Files.isReadable(file)) {
            spec.commandLine().getErr().println("urdma wire decode: cannot read " + file);
            return 2;
        }
        final PrintWriter out = spec.commandLine().getOut();
        final AnyFrameDecoder decoder = new AnyFrameDecoder(afhHint, lite, !noPaxiIcrc);
        final Packet p = new Packet();
        long frames = 0;
        long invalid = 0;
        long other = 0;
        long ceMarked = 0;
        long cnps = 0;
        try (PcapReader r = new PcapReader(file)) {
            while (r.next()) {
                frames++;
                final UnsafeBuffer b = r.buffer();
                final int len = r.capturedLength();
                final FrameClass c = decoder.classify(b, 0, len);
                final String line;
                boolean bad = false;
                switch (c) {
                    case PFC -> {
                        final StringBuilder sb = new StringBuilder("pfc cev=0x")
                            .append(Integer.toHexString(MacControlFrame.classEnable(b, 0))).append(" quanta=");
                        for (int prio = 0; prio < MacControlFrame.PRIORITIES; prio++) {
                            sb.append(prio == 0 ? "" : ",").append(MacControlFrame.pfcQuanta(b, 0, prio));
                        }
                        line = sb.toString();
                    }
                    case PAUSE -> line = "pause quanta=" + MacControlFrame.pauseQuanta(b, 0);
                    case OTHER -> {
                        other++;
                        line = "other";
                    }
                    case RUNT -> {
                        bad = true;
                        line = "runt length=" + len;
                    }
                    default -> {
                        final DecodeStatus st = decoder.decode(b, 0, len, p);
                        if (st == DecodeStatus.OK) {
                            final boolean ce = congestionExperienced(p);
                            ceMarked += ce ? 1 : 0;
                            cnps += p.opcode == Opcode.CNP ? 1 : 0;
                            line = String.format("%-13s %-28s qpn=0x%06x psn=%d icrc=%s%s",
                                c.framing().cliName(), Opcode.name(p.opcode), p.destQp, p.psn,
                                hasIcrc(c.framing()) ? "ok" : "none", ce ? " ecn=ce" : "");
                        } else {
                            bad = true;
                            line = String.format("%-13s %s%s", c.framing().cliName(),
                                st == DecodeStatus.BAD_ICRC ? "icrc=bad" : "invalid: " + st,
                                p.opcode != 0 || st == DecodeStatus.BAD_ICRC ? " opcode=" + Opcode.name(p.opcode) : "");
                        }
                    }
                }
                if (bad) {
                    invalid++;
                }
                if (bad || !quiet) {
                    out.printf("%6d %s%n", r.frameNumber(), line);
                    if (detail && !bad && c.framing() != null) {
                        detail(out, p);
                    }
                }
            }
        }
        out.printf("%d frames: %d valid, %d invalid, %d other%n", frames, frames - invalid - other, invalid, other);
        if (ceMarked > 0 || cnps > 0) {
            out.printf("congestion: %d ce-marked, %d cnp%n", ceMarked, cnps);
        }
        out.flush();
        return invalid == 0 ? 0 : 1;
    }

    /** The header lines of {@link PacketFormatter#detail} (its summary line is the frame's line already). */
    private static void detail(final PrintWriter out, final Packet p) {
        final String text = PacketFormatter.detail(p);
        text.lines().skip(1).forEach(l -> out.printf("       %s%n", l));
    }

    /** ECN CE (0b11) in the IPv4 TOS / IPv6 traffic class of a RoCEv2 or PAXI Standard frame. */
    private static boolean congestionExperienced(final Packet p) {
        if (p.framing != FramingKind.ROCE2 && p.framing != FramingKind.PAXI_STANDARD) {
            return false;
        }
        return ((p.ipv6 ? p.trafficClass : p.tos) & 3) == 3;
    }

    private boolean hasIcrc(final FramingKind k) {
        return k != FramingKind.PAXI_LITE && (!k.isPaxi() || !noPaxiIcrc);
    }
}
