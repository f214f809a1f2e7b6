package org.urdma.transport.cm;

/** Connection setup failed: the peer vanished, timed out, sent garbage, or could not be resolved. */
public class ConnectionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConnectionException(String message) {
        super(message);
    }

    public ConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
