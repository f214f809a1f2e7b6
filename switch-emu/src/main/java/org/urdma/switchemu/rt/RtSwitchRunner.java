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
        IdleStrategy idle = switch (sw.options().idle()) {
            case SPIN -> new BusySpinIdleStrategy();
            case BACKOFF -> new BackoffIdleStrategy(200, 20, 1_000, 50_000);
            case WAIT -> new WaitIdle(sw);
        };
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

    /** {@link RtOptions.Idle#WAIT}: after a pass without work the switch decides how long it may sleep. */
    private record WaitIdle(RtSwitch sw) implements IdleStrategy {
        @Override
        public void idle(int workCount) {
            if (workCount <= 0) {
                sw.idle();
            }
        }

        @Override
        public void idle() {
            sw.idle();
        }

        @Override
        public void reset() {
        }

        @Override
        public String alias() {
            return "wait";
        }
    }

    public RtSwitch sw() {
        return sw;
    }

    /** CPU time the driver thread has used so far (user + system), ns; -1 if the JVM cannot tell. */
    public long cpuNanos() {
        Thread t = runner.thread();
        return t == null ? -1 : java.lang.management.ManagementFactory.getThreadMXBean().getThreadCpuTime(t.threadId());
    }

    /** User-mode CPU time of the driver thread so far, ns; -1 if the JVM cannot tell. */
    public long userNanos() {
        Thread t = runner.thread();
        return t == null ? -1 : java.lang.management.ManagementFactory.getThreadMXBean().getThreadUserTime(t.threadId());
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
