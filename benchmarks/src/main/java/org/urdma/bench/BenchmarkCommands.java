package org.urdma.bench;

import org.urdma.bench.perf.LatVsTcpCommand;
import org.urdma.bench.perf.VethBwCommand;
import org.urdma.cli.CliExtension;
import picocli.CommandLine;

/** {@code urdma jmh}, {@code urdma perf veth-bw} and {@code urdma perf lat-vs-tcp}. */
public final class BenchmarkCommands implements CliExtension {

    @Override
    public void addTo(CommandLine urdma) {
        urdma.addSubcommand(new JmhCommand());
        CommandLine perf = urdma.getSubcommands().get("perf");
        perf.addSubcommand(new VethBwCommand());
        perf.addSubcommand(new LatVsTcpCommand());
    }
}
