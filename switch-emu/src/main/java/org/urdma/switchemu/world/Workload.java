package org.urdma.switchemu.world;

/** Something an application does on a device host of a world: posts work requests and reaps completions. */
public interface Workload {
    /** Begins at {@code now} (the world calls it at the workload's start time). */
    void start(long now);

    /** Reaps completions and posts more work after an engine pass; true when it posted anything. */
    boolean poll(long now);

    /** Whether it has nothing left to do. */
    boolean finished();

    /** Its result so far. */
    FlowResult result();
}
