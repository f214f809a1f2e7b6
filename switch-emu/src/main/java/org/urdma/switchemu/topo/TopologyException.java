package org.urdma.switchemu.topo;

/** A topology file is wrong; the message starts with "FILE:LINE:". */
public final class TopologyException extends IllegalArgumentException {
    private final int line;

    public TopologyException(String source, int line, String message) {
        super(source + ":" + line + ": " + message);
        this.line = line;
    }

    public int line() {
        return line;
    }
}
