package org.urdma.express.safety;

/** A path the server will not write: the message names it and why. */
public final class PathRefusedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public PathRefusedException(String message) {
        super(message);
    }
}
