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
import java.util.List;
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
}
