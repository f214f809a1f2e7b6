package org.urdma.transport.cm;

/**
 * A connected out-of-band byte stream with blocking, time-bounded reads, as perftest and ibv_*_pingpong use
 * their TCP socket: the client writes first and the server reads first at every step. Every failure is a
 * {@link ConnectionException} naming the step: the peer closed, went silent past the timeout, or sent too much.
 */
public interface ExchangeChannel extends AutoCloseable {
    /** True on the side that connected (writes first), false on the side that accepted. */
    boolean isClient();

    /** The peer's address, for messages. */
    String peer();

    /** Sends {@code bytes} and waits until they are handed to the kernel (or fails). */
    void write(byte[] bytes, String step);

    /** Blocks until exactly {@code length} bytes arrived; fails on close, error or timeout. */
    byte[] read(int length, String step);

    /** Changes how long each later {@link #read} waits (e.g. longer while the peer runs a benchmark). */
    void readTimeout(java.time.Duration timeout);

    /** {@return whether the stream has ended: the peer closed it (its process too may have ended), or this side did} */
    default boolean ended() {
        return false;
    }

    /** One lock-step round: the client writes then reads, the server reads then writes. */
    default byte[] swap(byte[] mine, int theirLength, String step) {
        if (isClient()) {
            write(mine, step);
            return read(theirLength, step);
        }
        byte[] theirs = read(theirLength, step);
        write(mine, step);
        return theirs;
    }

    @Override
    void close();
}
