package org.urdma.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The CLI reference, docs/reference/cli: a Markdown page per command and subcommand holding its picocli help as
 * {@code --help} prints it, and an index. Generated, so the pages cannot drift from the commands.
 */
public final class CliReference {
    /** The width the pages' usage text is wrapped at, whatever the terminal of whoever generates them. */
    static final int WIDTH = 100;
    static final String INDEX = "README.md";

    private CliReference() {
    }

    /** Writes the pages into {@code args[0]} (default docs/reference/cli), removing pages of commands that are gone. */
    public static void main(String[] args) throws IOException {
        write(Path.of(args.length > 0 ? args[0] : "docs/reference/cli"));
    }

    static void write(Path dir) throws IOException {
        Map<String, String> pages = pages();
        Files.createDirectories(dir);
        try (var old = Files.list(dir)) {
            for (Path p : old.toList()) {
                if (p.toString().endsWith(".md") && !pages.containsKey(p.getFileName().toString())) Files.delete(p);
            }
        }
        for (Map.Entry<String, String> e : pages.entrySet()) Files.writeString(dir.resolve(e.getKey()), e.getValue());
    }

    /** File name to content: every command's page, then the index. */
    static Map<String, String> pages() {
        Map<String, String> pages = new LinkedHashMap<>();
        StringBuilder index = new StringBuilder("# urdma command reference\n\n").append(generatedFrom("each command's `--help`"))
            .append("| Command | What it does |\n|---|---|\n");
        for (CommandLine c : commands()) {
            pages.put(fileName(c), page(c));
            index.append("| [`").append(c.getCommandSpec().qualifiedName()).append("`](").append(fileName(c)).append(") | ")
                .append(summary(c).replace("|", "\\|")).append(" |\n");
        }
        pages.put(INDEX, index.toString());
        return pages;
    }

    private static String generatedFrom(String source) {
        return "Generated from " + source + " by `org.urdma.cli.CliReference`; do not edit by hand (`CliReferencePagesTest`"
            + " says how to regenerate).\n\n";
    }

    /** Every command of the tree once, parents before their subcommands. */
    static List<CommandLine> commands() {
        CommandLine root = UrdmaCli.commandLine();
        root.setUsageHelpWidth(WIDTH);
        return List.copyOf(new LinkedHashSet<>(OptionChecks.all(root)));
    }

    /** {@code urdma perf write-bw} → perf-write-bw.md; the root command is urdma.md. */
    static String fileName(CommandLine c) {
        String q = c.getCommandSpec().qualifiedName("-");
        return (q.equals("urdma") ? q : q.substring("urdma-".length())) + ".md";
    }

    private static String page(CommandLine c) {
        CommandSpec spec = c.getCommandSpec();
        c.setUsageHelpWidth(WIDTH);
        StringBuilder b = new StringBuilder("# ").append(spec.qualifiedName()).append("\n\n").append(summary(c)).append("\n\n");
        b.append(generatedFrom("`" + spec.qualifiedName() + " --help`"));
        b.append("```text\n").append(c.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n");
        CommandLine parent = c.getParent();
        if (!c.getSubcommands().isEmpty()) {
            b.append("\n## Subcommands\n\n");
            for (CommandLine sub : new LinkedHashSet<>(c.getSubcommands().values())) {
                b.append("- [`").append(sub.getCommandSpec().qualifiedName()).append("`](").append(fileName(sub)).append("): ")
                    .append(summary(sub)).append('\n');
            }
        }
        b.append('\n').append(parent == null ? "" : "Part of [`" + parent.getCommandSpec().qualifiedName() + "`](" + fileName(parent)
            + "). ").append("All commands: [the index](").append(INDEX).append(").\n");
        return b.toString();
    }

    /** What the parent's command list shows: the header's first line, else the description's first paragraph. */
    static String summary(CommandLine c) {
        String[] h = c.getCommandSpec().usageMessage().header();
        String[] d = h.length > 0 ? h : c.getCommandSpec().usageMessage().description();
        return d.length == 0 ? "" : String.format(d[0]).strip();
    }
}
