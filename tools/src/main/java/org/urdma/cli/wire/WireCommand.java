package org.urdma.cli.wire;

import picocli.CommandLine.Command;

/** {@code urdma wire ...}: frame-level tools. */
@Command(
    name = "wire",
    mixinStandardHelpOptions = true,
    description = "Frame tools: write sample frames of every opcode to a pcap, decode a pcap with urdma's codecs, print the Wireshark dissector of urdma's own fields.",
    subcommands = {WireSampleCommand.class, WireDecodeCommand.class, WireDissectorCommand.class})
public final class WireCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
