package org.urdma.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code urdma} command line: one entry point whose subcommands grow with the project. */
@Command(
        name = "urdma",
        mixinStandardHelpOptions = true,
        versionProvider = UrdmaCli.Version.class,
        description = "User-space software RDMA: RoCEv1/RoCEv2/PAXI frames, verbs, perftest-style benchmarks.",
        subcommands = {CommandLine.HelpCommand.class, org.urdma.cli.wire.WireCommand.class, org.urdma.tools.perf.PerfCommand.class,
            org.urdma.tools.pingpong.PingpongCommand.class, org.urdma.tools.rping.RpingCommand.class, org.urdma.tools.rdmacm.RdmaExampleCommand.Server.class,
            org.urdma.tools.rdmacm.RdmaExampleCommand.Client.class, org.urdma.tools.rdmacm.RdmaExampleCommand.UdaddyCommand.class,
            org.urdma.tools.rdmacm.RdmacmToolCommand.Ucmatose.class, org.urdma.tools.rdmacm.RdmacmToolCommand.CmtimeCommand.class,
            org.urdma.tools.rdmacm.MckeyCommand.class,
            org.urdma.cli.topo.TopoCommand.class,
            org.urdma.cli.sw.SwitchCommand.class, org.urdma.cli.stat.StatCommand.class, org.urdma.cli.devinfo.DevinfoCommand.class,
            org.urdma.cli.journal.JournalCommand.class, org.urdma.cli.fuzz.FuzzCommand.class,
            org.urdma.cli.copy.CopyCommand.class, org.urdma.cli.copy.ServeCommand.class})
public final class UrdmaCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        // No subcommand: show what there is, like git does.
        spec.commandLine().usage(System.out);
    }

    /** Builds the command tree, with the commands of every module on the class path; tests use it to run commands in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new UrdmaCli());
        CliExtension.addAll(cl);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        for (CommandLine c : OptionChecks.all(cl)) {
            // every command takes --verbose (stack traces of errors) unless it has its own or hands its arguments on (jmh)
            CommandLine.Model.CommandSpec spec = c.getCommandSpec();
            if (spec.findOption("--verbose") == null && spec.unmatchedArgsBindings().isEmpty()) {
                spec.addOption(CommandLine.Model.OptionSpec.builder("--verbose").description("On an error, also print its stack trace")
                        .arity("0").type(boolean.class).build());
            }
        }
        // every value the user gave is checked against its option's @Range before the command runs
        cl.setExecutionStrategy(parsed -> {
            OptionChecks.check(parsed);
            return new CommandLine.RunLast().execute(parsed);
        });
        // a bad option or value: one line naming it, exit 2, no usage screen
        cl.setParameterExceptionHandler((e, args) -> {
            CommandLine line = e.getCommandLine();
            if (java.util.Arrays.asList(args).contains("--verbose")) e.printStackTrace(line.getErr());
            line.getErr().println(line.getCommandSpec().qualifiedName() + ": " + e.getMessage());
            return line.getCommandSpec().exitCodeOnInvalidInput();
        });
        // an error while running: one line (the user's to fix, or an internal error saying so); --verbose adds the trace
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (parsed.originalArgs().contains("--verbose")) e.printStackTrace(line.getErr());
            line.getErr().println(line.getCommandSpec().qualifiedName() + ": " + describe(e));
            return userError(e) ? 2 : 1;
        });
        return cl;
    }

    /** Errors that a user's input or environment causes (a file, an interface, a peer, a value): no trace needed. */
    static boolean userError(Throwable e) {
        return e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof java.io.IOException
            || e instanceof java.io.UncheckedIOException || e instanceof org.urdma.nativeio.NativeException
            || e instanceof org.urdma.nativeio.netns.IpCommandException || e instanceof org.urdma.transport.cm.ConnectionException
            || e instanceof org.urdma.switchemu.topo.TopologyException || e instanceof UnsupportedOperationException
            || e instanceof org.urdma.transport.api.RdmaConnectException;
    }

    /** The one line an error prints. */
    static String describe(Throwable e) {
        if (e instanceof java.io.UncheckedIOException u && u.getCause() != null) return describe(u.getCause());
        String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file: " + msg;
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied: " + msg;
        if (e instanceof java.nio.file.FileSystemException) return e.getClass().getSimpleName() + ": " + msg;
        if (userError(e)) return msg;
        return "internal error: " + e + " (--verbose shows the stack trace)";
    }

    public static void main(String[] args) {
        ThirdPartyLogs.quietUnlessVerbose(args);
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
