package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;

/**
 * A port backed by two in-process queues (for tests and the no-root default). {@link #inject} puts a
 * frame on the wire towards the switch; {@link #take} returns what the switch sent. Allocates per frame.
 */
public final class InMemoryPort implements FramePort {
    private final ArrayDeque<byte[]> toSwitch = new ArrayDeque<>();
    private final ArrayDeque<byte[]> fromSwitch = new ArrayDeque<>();
    private final int capacity;
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);

    public InMemoryPort(int capacity) {
        this.capacity = capacity;
    }

    public synchronized void inject(byte[] frame) {
        toSwitch.add(frame.clone());
    }

    /** The next frame the switch sent, or null. */
    public synchronized byte[] take() {
        return fromSwitch.poll();
    }

    public synchronized int pending() {
        return fromSwitch.size();
    }

    @Override
    public int receive(Receiver receiver, int limit) {
        int n = 0;
        while (n < limit) {
            byte[] f;
            synchronized (this) {
                f = toSwitch.poll();
            }
            if (f == null) {
                break;
            }
            view.wrap(f);
            receiver.onFrame(view, 0, f.length);
            n++;
        }
        return n;
    }

    @Override
    public synchronized boolean send(DirectBuffer buffer, int offset, int length) {
        if (fromSwitch.size() >= capacity) {
            return false;
        }
        byte[] f = new byte[length];
        buffer.getBytes(offset, f);
        fromSwitch.add(f);
        return true;
    }
}
