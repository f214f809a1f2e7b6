package org.urdma.verbs;

/** An opened RDMA device ({@code ibv_context}): the factory for everything else. */
public interface Device extends AutoCloseable {
    String name();

    DeviceAttributes attributes();

    /** The port GID at {@code index} (index 0 is the default GID). */
    Gid gid(int index);

    /** The port's link-layer (MAC) address. */
    byte[] mac();

    ProtectionDomain allocPd();

    CompletionChannel createCompletionChannel();

    /** A CQ of at least {@code entries} slots; {@code channel} may be null. */
    CompletionQueue createCq(int entries, CompletionChannel channel);

    /** Takes the next asynchronous event (SRQ limit, QP fatal, …) into {@code out}; false when there is none. */
    boolean pollAsyncEvent(AsyncEvent out);

    @Override
    void close();
}
