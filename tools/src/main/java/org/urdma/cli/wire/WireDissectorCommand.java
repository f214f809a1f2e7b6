package org.urdma.cli.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code urdma wire dissector}: the Wireshark Lua dissector of urdma's own fields, printed or written to a file. */
@Command(
    name = "dissector",
    mixinStandardHelpOptions = true,
    description = {
        "Print (or write with --out) a Wireshark Lua postdissector for what the InfiniBand dissector does not know: "
            + "the INT stack of HPCC packets and the WAN-mode headers (UETH, TS, per-packet RETH, AETH-EXT, SACK-ETH, "
            + "FEC-ETH). Fields are urdma.*, e.g. urdma.int.hops, urdma.int.hop.qlen.",
        "Install: urdma wire dissector --out ~/.local/lib/wireshark/plugins/urdma.lua; or for one run: "
            + "tshark -X lua_script:urdma.lua -r FILE.pcap ..."})
public final class WireDissectorCommand implements Callable<Integer> {
    /** The script's resource name, beside this class. */
    static final String RESOURCE = "urdma.lua";

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "FILE", description = "write the script to FILE (parent directories made) instead of standard output")
    Path out;

    /** The dissector's text. */
    public static String script() {
        try (InputStream in = WireDissectorCommand.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the urdma jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Integer call() {
        final String text = script();
        if (out == null) {
            spec.commandLine().getOut().print(text);
            spec.commandLine().getOut().flush();
            return 0;
        }
        try {
            final Path parent = out.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(out, text, StandardCharsets.UTF_8);
        } catch (final IOException e) {
            spec.commandLine().getErr().println("urdma wire dissector: cannot write " + out + ": " + e.getMessage());
            return 2;
        }
        spec.commandLine().getOut().println("wrote " + out);
        return 0;
    }
}
