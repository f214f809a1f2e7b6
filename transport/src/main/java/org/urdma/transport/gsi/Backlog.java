package org.urdma.transport.gsi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One listened service (rdma_listen's id): its listener and the REQs it has not taken yet, oldest first, at most
 * {@code capacity} of them, as the kernel's ucma counts a listener's backlog.
 */
final class Backlog {
    /** rdma_listen's backlog 0: the kernel's default net.rdma_ucm.max_backlog. */
    static final int DEFAULT_CAPACITY = 1024;

    final CmAgent.Listener listener;
    final int capacity;
    private final ArrayDeque<CmId> waiting = new ArrayDeque<>();

    Backlog(CmAgent.Listener listener, int capacity) {
        this.listener = listener;
        this.capacity = capacity > 0 ? capacity : DEFAULT_CAPACITY;
    }

    boolean full() {
        return waiting.size() >= capacity;
    }

    void add(CmId id) {
        waiting.addLast(id);
    }

    boolean remove(CmId id) {
        return waiting.remove(id);
    }

    int size() {
        return waiting.size();
    }

    /** The REQs still waiting, oldest first, leaving none behind. */
    List<CmId> drain() {
        List<CmId> all = new ArrayList<>(waiting);
        waiting.clear();
        return all;
    }
}
