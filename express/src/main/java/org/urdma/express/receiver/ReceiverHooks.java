package org.urdma.express.receiver;

import java.nio.ByteBuffer;

/** Test seams of the receiving side. */
public interface ReceiverHooks {
    ReceiverHooks NONE = (path, block, placed) -> { };

    /** Called with a block's placed bytes before their hash is checked (a test corrupts them here). */
    void beforeBlockCheck(String path, int block, ByteBuffer placed);
}
