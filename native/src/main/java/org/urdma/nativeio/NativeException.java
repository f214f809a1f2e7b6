package org.urdma.nativeio;

/**
 * A failed libc call: carries the function name, the errno value and a message that says what to do
 * about the common causes (missing privileges, unknown interface).
 */
public final class NativeException extends RuntimeException {
    private final String function;
    private final int errno;

    public NativeException(String function, int errno, String message) {
        super(message);
        this.function = function;
        this.errno = errno;
    }

    /** Builds the standard message "function(context) failed: strerror (errno N)" plus a hint. */
    public static NativeException of(String function, int errno, String context) {
        StringBuilder sb = new StringBuilder(function);
        if (context != null && !context.isEmpty()) {
            sb.append('(').append(context).append(')');
        }
        sb.append(" failed: ").append(Libc.strerror(errno)).append(" (errno ").append(errno).append(')');
        return new NativeException(function, errno, sb.toString());
    }

    /** The libc function that failed, e.g. "socket". */
    public String function() {
        return function;
    }

    /** The errno value captured right after the call. */
    public int errno() {
        return errno;
    }

    /** True for EPERM / EACCES, i.e. missing capabilities. */
    public boolean isPermissionDenied() {
        return errno == Errno.EPERM || errno == Errno.EACCES;
    }
}
