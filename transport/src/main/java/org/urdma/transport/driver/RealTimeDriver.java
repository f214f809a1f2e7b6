package org.urdma.transport.driver;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.urdma.transport.engine.SoftDevice;

/**
 * Runs one device on its own thread (an Agrona AgentRunner, like Aeron's conductor): the application
 * threads only post into rings and poll completion rings. Busy-spin for latency, backoff to save CPU.
 */
public final class RealTimeDriver implements EngineDriver {
    public enum Idle { BUSY_SPIN, BACKOFF }

    private final AgentRunner runner;
    private final Thread thread;
    private final String idleName;

    public RealTimeDriver(SoftDevice device, Idle idle) {
        this(device, idle == Idle.BUSY_SPIN ? new BusySpinIdleStrategy()
                : new BackoffIdleStrategy(100, 10, 1_000, 100_000));
    }

    public RealTimeDriver(SoftDevice device, IdleStrategy idle) {
        if (device.drivenInline()) {
            throw new IllegalStateException("device " + device.name() + ": already driven inline; close that driver first");
        }
        this.idleName = idle.alias();
        this.runner = new AgentRunner(idle, Throwable::printStackTrace, null, new DeviceAgent(device));
        this.thread = AgentRunner.startOnThread(runner);
        // control calls made before the agent thread starts run inline; wait so later ones queue instead
        while (!device.hasEngineThread()) Thread.onSpinWait();
    }

    public Thread thread() {
        return thread;
    }

    @Override
    public String describe() {
        return "thread (" + idleName + ")";
    }

    @Override
    public void close() {
        runner.close();
    }
}
