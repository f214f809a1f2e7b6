package org.urdma.transport.driver;

import java.util.function.IntConsumer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.urdma.transport.engine.SoftDevice;

/**
 * Runs a device on the application's own thread, like an Aeron client in invoker mode (Agrona
 * {@link AgentInvoker}): every {@code poll} of one of the device's CQs first makes one engine pass at
 * System.nanoTime(), and so do control calls (create QP, modify, register memory) while they wait. No
 * thread of its own: on a machine with few cores a ping-pong needs one spinning thread per process instead
 * of two. The application must keep polling for the engine to progress (ACKs, retransmissions, ARP
 * answers); a side that only waits, e.g. the target of RDMA WRITEs, wants {@link RealTimeDriver} instead.
 */
public final class InlineDriver implements EngineDriver {
    private final SoftDevice device;
    private final AgentInvoker invoker;
    private final long spinNanos;
    private final IntConsumer waitForFrames;

    /** Busy-polling only: {@link #idle(long)} spins. */
    public InlineDriver(SoftDevice device) {
        this(device, Long.MAX_VALUE, null);
    }

    /**
     * @param spinNanos     how long {@link #idle(long)} spins before it blocks
     * @param waitForFrames blocks the calling thread until the link has received frames or the given milliseconds
     *                      passed (e.g. {@code AfPacketLink::awaitFrames}, a poll(2) on the socket); null: never block
     */
    public InlineDriver(SoftDevice device, long spinNanos, IntConsumer waitForFrames) {
        if (device.hasEngineThread()) {
            throw new IllegalStateException("device " + device.name() + ": already driven by a thread; close that driver first");
        }
        if (spinNanos < 0) throw new IllegalArgumentException("spinNanos: must be >= 0, was " + spinNanos);
        this.device = device;
        this.spinNanos = spinNanos;
        this.waitForFrames = waitForFrames;
        this.invoker = new AgentInvoker(Throwable::printStackTrace, null, new PassAgent(device));
        invoker.start();
        device.inlinePass(invoker::invoke);
    }

    /** One engine pass on the calling thread (skipped when another thread is in one); returns the work done. */
    public int invoke() {
        return invoker.invoke();
    }

    /**
     * For the application's wait loops, after a CQ poll that returned nothing: spins, and once the wait (begun at
     * {@code waitingSince}, System.nanoTime()) is older than {@code spinNanos} blocks in the link for up to 1 ms (so
     * timers stay on time) unless the engine has work of its own. A spinning process on a crowded machine waits for
     * the scheduler at every hop; one asleep in poll(2) is woken when its frame arrives, as a TCP reader is.
     */
    public void idle(long waitingSince) {
        if (waitForFrames == null || System.nanoTime() - waitingSince < spinNanos || device.hasPendingWork()) {
            Thread.onSpinWait();
            return;
        }
        waitForFrames.accept(1);
    }

    @Override
    public String describe() {
        return waitForFrames == null ? "inline (application thread, busy-poll)"
                : "inline (application thread, poll(2) after " + spinNanos / 1000 + " us idle)";
    }

    @Override
    public void close() {
        device.inlinePass(null);
        invoker.close();
    }

    /** One pass, claimed so two polling threads never run the engine at once. */
    private static final class PassAgent implements Agent {
        private final SoftDevice device;

        PassAgent(SoftDevice device) {
            this.device = device;
        }

        @Override
        public int doWork() {
            if (!device.tryEnterEngine()) return 0;
            try {
                return device.doWork(System.nanoTime());
            } finally {
                device.exitEngine();
            }
        }

        @Override
        public String roleName() {
            return "urdma-inline-" + device.name();
        }
    }
}
