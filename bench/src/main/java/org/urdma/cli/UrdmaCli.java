package org.urdma.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code urdma} command line: one entry point whose subcommands grow with the project. */
@Command(
        name = "urdma",
        mixinStandardHelpOptions = true,
        versionProvider = UrdmaCli.Version.class,
        description = "User-space software RDMA: RoCEv1/RoCEv2/PAXI frames, verbs, perftest-style benchmarks.",
        subcommands = {CommandLine.HelpCommand.class, org.urdma.cli.wire.WireCommand.class, JmhCommand.class, org.urdma.bench.perf.PerfCommand.class,
            org.urdma.bench.pingpong.PingpongCommand.class, org.urdma.cli.topo.TopoCommand.class,
            org.urdma.cli.sw.SwitchCommand.class, org.urdma.cli.stat.StatCommand.class,
            org.urdma.cli.journal.JournalCommand.class})
public final class UrdmaCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        // No subcommand: show what there is, like git does.
        spec.commandLine().usage(System.out);
    }

    /** Builds the command tree; tests use it to run commands in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new UrdmaCli());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        // a wrong topology file or switch name is the user's to fix: the message (FILE:LINE: ...), no stack trace
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            Object command = line.getCommand();
            boolean fabric = command instanceof org.urdma.cli.sw.SwitchCommand || command instanceof org.urdma.cli.stat.StatCommand
                || command instanceof org.urdma.cli.journal.JournalCommand
                || command.getClass().getPackageName().equals("org.urdma.cli.topo");
            if (e instanceof org.urdma.switchemu.topo.TopologyException
                || (fabric && (e instanceof IllegalArgumentException || e instanceof IllegalStateException))) {
                line.getErr().println("urdma " + line.getCommandName() + ": " + e.getMessage());
                return 2;
            }
            if (fabric && e instanceof java.nio.file.NoSuchFileException) {
                line.getErr().println("urdma " + line.getCommandName() + ": no such file: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        // urdma journal: a bad option value is one line naming the option (picocli's message), not the usage
        CommandLine.IParameterExceptionHandler usage = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((ex, args) -> {
            if (ex.getCommandLine().getCommand() instanceof org.urdma.cli.journal.JournalCommand) {
                ex.getCommandLine().getErr().println("urdma journal: " + ex.getMessage());
                return 2;
            }
            return usage.handleParseException(ex, args);
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = UrdmaCli.class.getPackage().getImplementationVersion();
            return new String[] {"urdma " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}
