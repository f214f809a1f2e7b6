package org.urdma.switchemu.world;

import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;

/**
 * A real {@link SwitchCore} in a simulated world: frames arriving on a port go into the core, the core is polled at
 * the times it asks for, and what it sends is written straight into a frame-pool slot (the core's
 * {@link SwitchCore.SlotTransmitter}) and put on the port's wire.
 */
public final class SwitchNode implements SwitchCore.SlotTransmitter {
    final int index;
    private final String name;
    private final World world;
    private final FramePool pool;
    final SwitchCore core;
    final Wire[] out;
    long pendingWake = Long.MAX_VALUE;
    private int claimed = -1;

    SwitchNode(int index, String name, World world, SwitchConfig config, long seed) {
        this.index = index;
        this.name = name;
        this.world = world;
        this.pool = world.pool;
        this.core = new SwitchCore(config, this, new SplittableRandom(seed));
        this.out = new Wire[core.portCount()];
    }

    public String name() {
        return name;
    }

    public SwitchCore core() {
        return core;
    }

    void arrive(int port, int slot, long now) {
        core.onFrame(port, pool.buffer(slot), pool.offset(slot), pool.length(slot), pool.wireLength(slot), now);
        pool.release(slot);
        world.wakeSwitch(this, now);
    }

    @Override
    public MutableDirectBuffer claim(int port, int length) {
        if (out[port] == null || length > FramePool.SLOT) return null;
        claimed = pool.acquire(length);
        return pool.buffer(claimed);
    }

    @Override
    public int claimedOffset() {
        return pool.offset(claimed);
    }

    @Override
    public void commit(int port, int length, long txStartNs, long txEndNs) {
        commit(port, length, length, txStartNs, txEndNs);
    }

    @Override
    public void commit(int port, int length, int wireLength, long txStartNs, long txEndNs) {
        int slot = claimed;
        claimed = -1;
        pool.length(slot, length);
        pool.wireLength(slot, wireLength);
        world.carry(out[port], slot, txEndNs);
    }

    @Override
    public void transmit(int port, DirectBuffer buffer, int offset, int length, long txStartNs, long txEndNs) {
        Wire w = out[port];
        if (w == null || length > FramePool.SLOT) return; // an unconnected port: the frame leaves the world
        int slot = pool.acquire(length);
        pool.buffer(slot).putBytes(pool.offset(slot), buffer, offset, length);
        pool.length(slot, length);
        world.carry(w, slot, txEndNs);
    }
}
