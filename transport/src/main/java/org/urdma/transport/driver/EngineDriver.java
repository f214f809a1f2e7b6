package org.urdma.transport.driver;

import java.util.Locale;
import org.urdma.transport.engine.SoftDevice;

/** Whatever runs a device's engine passes in real time: its own agent thread, or the application's thread. */
public interface EngineDriver extends AutoCloseable {
    /** How a device is driven. */
    enum Mode {
        /** An Agrona agent thread per device ({@link RealTimeDriver}): the engine progresses on its own. The API default. */
        THREAD,
        /** The application's thread, inside CQ polls ({@link InlineDriver}): fewest threads, lowest latency on few cores. */
        INLINE;

        /** {@code thread} (or {@code agent}) or {@code inline}. */
        public static Mode parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "thread", "agent" -> THREAD;
                case "inline" -> INLINE;
                default -> throw new IllegalArgumentException("--driver: inline or thread, was '" + s + "'");
            };
        }
    }

    /** Starts a driver of the given mode for {@code device}; {@code idle} applies to a driver thread. */
    static EngineDriver start(SoftDevice device, Mode mode, RealTimeDriver.Idle idle) {
        return mode == Mode.INLINE ? new InlineDriver(device) : new RealTimeDriver(device, idle);
    }

    /** For banners: which thread runs the engine. */
    String describe();

    @Override
    void close();
}
