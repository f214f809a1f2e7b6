package org.urdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
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
}
