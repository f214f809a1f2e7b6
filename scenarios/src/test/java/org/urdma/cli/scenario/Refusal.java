package org.urdma.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.urdma.cli.UrdmaCli;

/** Runs the CLI with arguments a user got wrong: it must exit 2 and say why in one line, which is returned. */
final class Refusal {
    private Refusal() {
    }

    static String of(String... args) {
        StringWriter err = new StringWriter();
        var cl = UrdmaCli.commandLine();
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        assertEquals(2, rc, err.toString());
        String line = err.toString().strip();
        assertEquals(1, line.lines().count(), line);
        return line;
    }
}
