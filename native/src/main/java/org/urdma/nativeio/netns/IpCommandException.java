package org.urdma.nativeio.netns;

import java.util.List;

/** An iproute2 (or other) command failed; the message carries the command line and its stderr. */
public final class IpCommandException extends RuntimeException {
    private final List<String> command;
    private final int exitCode;
    private final String stderr;

    public IpCommandException(List<String> command, int exitCode, String stderr) {
        super("'" + String.join(" ", command) + "' failed with exit code " + exitCode
                + (stderr.isBlank() ? "" : ": " + stderr.strip()));
        this.command = List.copyOf(command);
        this.exitCode = exitCode;
        this.stderr = stderr;
    }

    public List<String> command() {
        return command;
    }

    public int exitCode() {
        return exitCode;
    }

    public String stderr() {
        return stderr;
    }
}
