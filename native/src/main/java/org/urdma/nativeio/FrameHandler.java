package org.urdma.nativeio;

/** Receives frames from an RX ring; the {@link RxFrame} is a flyweight valid only during the call. */
@FunctionalInterface
public interface FrameHandler {
    void onFrame(RxFrame frame);
}
