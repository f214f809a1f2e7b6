package org.urdma.express.session;

/** The peer went away or the QP failed: what is durable stays, and a rerun resumes. */
public final class ConnectionLostException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ConnectionLostException(String message) {
        super(message);
    }
}
