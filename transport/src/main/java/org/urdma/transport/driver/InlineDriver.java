package org.urdma.transport.driver;

import java.util.function.LongSupplier;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.urdma.transport.engine.SoftDevice;

/**
 * Runs a device on the application's own thread, like an Aeron client in invoker mode (Agrona
 * {@link AgentInvoker}): a {@code poll} of one of the device's CQs that finds it empty makes one engine pass
 * at System.nanoTime() or the driver's clock (completions already there are returned at once, as ibv_poll_cq
 * does), and so do control calls (create QP, modify, register memory) while they wait. A post that finds the engine free sends at
 * once on the posting thread, as rxe's post_send runs the requester, together with the ACK its QP owes. No
 * thread of its own: on a machine with few cores a ping-pong needs one spinning thread per process instead
 * of two. The application must keep polling for the engine to progress (ACKs, retransmissions, ARP
 * answers); a side that only waits, e.g. the target of RDMA WRITEs, wants {@link RealTimeDriver} instead.
 */
public final class InlineDriver implements EngineDriver {
    private final SoftDevice device;
    private final AgentInvoker invoker;
    private final IdleStrategy idle;
    /** The time of the passes and posts this driver runs. */
    private final LongSupplier clock;
    /** Work done by the last pass this driver ran (for the idle strategy: a pass with work resets it). */
    private int lastWork;

    /** Busy-polling: {@link #idle()} spins. */
    public InlineDriver(SoftDevice device) {
        this(device, new BusySpinIdleStrategy());
    }

    /**
     * @param idle what {@link #idle()} does after a poll that found nothing, e.g. {@code AfPacketLink.pollIdleStrategy}
     *             (spin a while, then sleep in poll(2) on the socket until a frame arrives)
     */
    public InlineDriver(SoftDevice device, IdleStrategy idle) {
        this(device, idle, System::nanoTime);
    }

    /**
     * @param clock the time of every pass and post, System.nanoTime() by default; a test that must not see a timer
     *              fire while its thread is descheduled drives its own
     */
    public InlineDriver(SoftDevice device, IdleStrategy idle, LongSupplier clock) {
        if (device.hasEngineThread()) {
            throw new IllegalStateException("device " + device.name() + ": already driven by a thread; close that driver first");
        }
        this.device = device;
        this.idle = idle;
        this.clock = clock;
        this.invoker = new AgentInvoker(Throwable::printStackTrace, null, new PassAgent(this, device));
        invoker.start();
        device.inlinePass(invoker::invoke, clock);
    }

    /** One engine pass on the calling thread (skipped when another thread is in one); returns the work done. */
    public int invoke() {
        return invoker.invoke();
    }

    /**
     * For the application's wait loop (one thread), after a CQ poll that returned nothing: the idle strategy, told
     * whether the engine's last pass did any work. Spinning costs a crowded machine a scheduler wait at every hop;
     * a process asleep in poll(2) is woken when its frame arrives, as a TCP reader is.
     */
    public void idle() {
        idle.idle(lastWork);
    }

    @Override
    public String describe() {
        return "inline (application thread, idle " + idle.alias() + ")";
    }

    @Override
    public void close() {
        device.inlinePass(null);
        invoker.close();
    }

    /** One pass, claimed so two polling threads never run the engine at once. */
    private static final class PassAgent implements Agent {
        private final InlineDriver driver;
        private final SoftDevice device;

        PassAgent(InlineDriver driver, SoftDevice device) {
            this.driver = driver;
            this.device = device;
        }

        @Override
        public int doWork() {
            if (!device.tryEnterEngine()) return 0;
            try {
                return driver.lastWork = device.doWork(driver.clock.getAsLong());
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
