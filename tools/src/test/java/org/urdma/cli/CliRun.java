package org.urdma.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Runs the CLI in-process with stdout and stderr captured (also what commands print to System.out/err directly). */
public record CliRun(int exit, String out, String err) {
    public static CliRun run(String... args) {
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8), e = new PrintStream(err, true, StandardCharsets.UTF_8);
        System.setOut(o);
        System.setErr(e);
        try {
            CommandLine cl = UrdmaCli.commandLine();
            cl.setOut(new PrintWriter(o, true));
            cl.setErr(new PrintWriter(e, true));
            int exit = cl.execute(args);
            return new CliRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
