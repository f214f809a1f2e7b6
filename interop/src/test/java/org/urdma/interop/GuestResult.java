package org.urdma.interop;

/** Exit code and merged stdout/stderr of one command run in a guest. */
record GuestResult(String command, int exitCode, String output) {

    @Override
    public String toString() {
        return "$ " + command + "\n" + output + (output.endsWith("\n") ? "" : "\n") + "[exit " + exitCode + "]";
    }
}
