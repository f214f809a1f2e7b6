package org.urdma.switchemu.rt;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs an {@link RtSwitch} on its own platform thread (Agrona {@link AgentRunner}). {@link #close()}
 * stops the thread and closes the switch's sockets; the core's and ports' counters may be read
 * safely after that (the thread has ended).
 */
public final class RtSwitchRunner implements AutoCloseable {
    private final RtSwitch sw;
    private final AgentRunner runner;
    private final AtomicLong errors = new AtomicLong();

    private RtSwitchRunner(RtSwitch sw) {
        this.sw = sw;
        IdleStrategy idle = sw.options().idle() == RtOptions.Idle.SPIN
            ? new BusySpinIdleStrategy()
            : new BackoffIdleStrategy(200, 20, 1_000, 50_000);
        this.runner = new AgentRunner(idle, this::onError, null, sw);
    }

    public static RtSwitchRunner start(RtSwitch sw) {
        RtSwitchRunner r = new RtSwitchRunner(sw);
        AgentRunner.startOnThread(r.runner);
        return r;
    }

    private void onError(Throwable t) {
        // the data path does not throw on bad input; anything here is a bug worth seeing, once in a while
        if (errors.getAndIncrement() < 10) {
            System.err.println("switch " + sw.name() + ": " + t);
            t.printStackTrace();
        }
    }

    public RtSwitch sw() {
        return sw;
    }

    /** Errors the driver loop caught (the loop keeps running). */
    public long errors() {
        return errors.get();
    }

    @Override
    public void close() {
        runner.close();
        sw.onClose();
    }
}
