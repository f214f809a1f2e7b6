package org.urdma.transport.api;

/** Connection setup failed; the message names what: refused, timed out, the peer vanished or spoke another format. */
public final class RdmaConnectException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message one line naming the step and what failed
     * @param cause   the underlying failure
     */
    public RdmaConnectException(String message, Throwable cause) {
        super(message, cause);
    }
}
