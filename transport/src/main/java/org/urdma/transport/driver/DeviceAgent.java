package org.urdma.transport.driver;

import org.agrona.concurrent.Agent;
import org.urdma.transport.engine.SoftDevice;

/** The real-time face of a device: an Agrona agent whose duty cycle is one engine pass at System.nanoTime(). */
public final class DeviceAgent implements Agent {
    private final SoftDevice device;

    public DeviceAgent(SoftDevice device) {
        this.device = device;
    }

    @Override
    public void onStart() {
        device.bindEngineThread(Thread.currentThread());
    }

    @Override
    public int doWork() {
        return device.doWork(System.nanoTime());
    }

    @Override
    public void onClose() {
        device.bindEngineThread(null);
    }

    @Override
    public String roleName() {
        return "urdma-" + device.name();
    }
}
