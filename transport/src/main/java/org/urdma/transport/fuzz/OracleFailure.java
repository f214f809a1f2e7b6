package org.urdma.transport.fuzz;

/** The fuzzer's oracle saw something the spec does not allow; the message says what, with the seed and frame. */
public final class OracleFailure extends RuntimeException {
    public OracleFailure(String message) {
        super(message);
    }

    public OracleFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
