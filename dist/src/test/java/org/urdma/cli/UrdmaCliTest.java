package org.urdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class UrdmaCliTest {

    @Test
    void helpListsUsageAndExitsZero() {
        CommandLine cl = UrdmaCli.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        assertEquals(0, cl.execute("--help"));
        assertTrue(out.toString().contains("Usage: urdma"), out.toString());
    }

    @Test
    void unknownCommandIsAnErrorNamingIt() {
        CommandLine cl = UrdmaCli.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        assertEquals(2, cl.execute("no-such-command"));
        assertTrue(err.toString().contains("no-such-command"), err.toString());
    }

    @Test
    void everyCommandsHelpFormatsWithoutPicocliWarnings() {
        PrintStream saved = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        StringBuilder helps = new StringBuilder();
        try (PrintStream capture = new PrintStream(warnings, true, StandardCharsets.UTF_8)) {
            System.setErr(capture);
            Deque<CommandLine> todo = new ArrayDeque<>(List.of(UrdmaCli.commandLine()));
            while (!todo.isEmpty()) {
                CommandLine c = todo.pop();
                // a description's lone '%' is a format specifier to picocli: it warns on stderr and prints the raw text
                helps.append(c.getUsageMessage());
                todo.addAll(c.getSubcommands().values());
            }
        } finally {
            System.setErr(saved);
        }
        assertTrue(helps.length() > 1000, "the usage texts were rendered");
        String w = warnings.toString(StandardCharsets.UTF_8);
        assertFalse(w.contains("picocli WARN"), w);
    }

    @Test
    void everySubcommandsSummaryInItsParentsHelpIsAWholeSentence() {
        int checked = 0;
        for (CommandLine parent : OptionChecks.all(UrdmaCli.commandLine())) {
            if (parent.getSubcommands().isEmpty()) continue;
            Map<String, String> summaries = commandList(parent.getUsageMessage(CommandLine.Help.Ansi.OFF));
            for (CommandLine sub : new java.util.LinkedHashSet<>(parent.getSubcommands().values())) {
                String name = sub.getCommandName();
                String summary = summaries.get(name);
                assertTrue(summary != null, parent.getCommandSpec().qualifiedName() + " --help lists " + name);
                assertTrue(summary.matches(".*[.!?][)'\"]?"), "'" + parent.getCommandSpec().qualifiedName() + " --help' cuts the summary of "
                    + name + " mid-sentence: " + summary);
                checked++;
            }
        }
        assertTrue(checked > 30, "every level of the command tree was checked: " + checked);
    }

    /** The Commands: section of a usage text, name to summary (its wrapped lines joined). */
    private static Map<String, String> commandList(String usage) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines = new ArrayList<>(List.of(usage.split("\\R")));
        int from = lines.indexOf("Commands:");
        String name = null;
        for (int i = from + 1; from >= 0 && i < lines.size() && lines.get(i).startsWith("  "); i++) {
            String line = lines.get(i);
            if (!line.startsWith("   ")) {
                String[] parts = line.trim().split("\\s+", 2);
                name = parts[0].replaceAll(",$", "");
                out.put(name, parts.length > 1 ? parts[1].trim() : "");
            } else if (name != null) {
                out.put(name, (out.get(name) + " " + line.trim()).trim());
            }
        }
        return out;
    }
}
