package org.urdma.express.protocol;

/** A control message that does not parse: the message names the field and what was wrong with it. */
public final class MalformedMessageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super("malformed control message: " + message);
    }
}
