package org.urdma.cli.wire;

import java.nio.file.Path;
import org.urdma.cli.Range;
import java.util.List;
import java.util.concurrent.Callable;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.wire.FramingKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code urdma wire sample}: one valid frame per opcode of a framing, plus CNP, PFC and PAUSE, into a pcap. */
@Command(
    name = "sample",
    mixinStandardHelpOptions = true,
    description = "Write one valid frame for every opcode the framing can carry (plus CNP, PFC and PAUSE) to a pcap.")
public final class WireSampleCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--framing", required = true,
        description = "roce1, roce2, paxi-standard, paxi-afh1, paxi-afh2 or paxi-lite")
    String framing;

    @Range(min = 0, max = 7)
    @Option(names = "--vlan", paramLabel = "PCP", defaultValue = "-1",
        description = "tag transport frames with 802.1Q priority PCP (0-7); untagged when absent")
    int vlanPcp;

    @Range(min = 0, max = 4094)
    @Option(names = "--vid", defaultValue = "0", description = "VLAN id with --vlan (default ${DEFAULT-VALUE}: priority tag)")
    int vid;

    @Range
    @Option(names = "--seed", defaultValue = "1", description = "seed for the varied fields (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--urdma", description = "roce1 and roce2: also frames with the URDMA WAN-mode headers and (roce2) "
        + "the INT stack, for 'urdma wire dissector'")
    boolean urdma;

    @Option(names = "--out", required = true, description = "pcap file to write")
    Path out;

    @Override
    public Integer call() throws Exception {
        final FramingKind kind;
        try {
            kind = FramingKind.parse(framing);
        } catch (final IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--framing: " + e.getMessage());
        }
        if (vlanPcp < -1 || vlanPcp > 7) {
            throw new ParameterException(spec.commandLine(), "--vlan: PCP must be 0-7, was " + vlanPcp);
        }
        if (vid < 0 || vid > 4094) {
            throw new ParameterException(spec.commandLine(), "--vid: must be 0-4094, was " + vid);
        }
        final List<SampleFrames.Sample> samples = SampleFrames.generate(kind, vlanPcp, vid, seed, urdma);
        long ts = 1_700_000_000_000_000_000L;
        try (PcapWriter w = new PcapWriter(out)) {
            for (final SampleFrames.Sample s : samples) {
                w.write(ts, new UnsafeBuffer(s.frame()), 0, s.frame().length);
                ts += 1_000;
            }
        }
        spec.commandLine().getOut().printf("wrote %d %s frames to %s%n", samples.size(), kind.cliName(), out);
        return 0;
    }
}
