package org.urdma.transport.memory;

import java.lang.foreign.MemorySegment;
import java.util.random.RandomGenerator;
import org.agrona.collections.Int2ObjectHashMap;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.ProtectionDomain;

/**
 * The device's memory keys: lkey/rkey → region. Keys are drawn from the generator the device is given
 * (a SecureRandom in production, seeded under simulation), so they cannot be guessed from each other.
 * Lookups check PD, validity, rights and bounds before a byte moves. Owned by the engine thread.
 */
public final class MemoryKeyTable {
    /** Reasons a lookup fails, for the right completion status or NAK. */
    public static final int OK = 0, BAD_KEY = 1, WRONG_PD = 2, NO_RIGHTS = 3, OUT_OF_BOUNDS = 4;

    private final Int2ObjectHashMap<RegisteredMemory> byLkey = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<RegisteredMemory> byRkey = new Int2ObjectHashMap<>();
    private final RandomGenerator keys;
    private final int maxRegions;
    private int lastFailure;
    /** The region {@link #local} found last (engine thread only, as the lookups). */
    private RegisteredMemory lastLocal;
    /** Runs table changes requested from application threads on the engine thread (set by the device). */
    private java.util.function.Consumer<Runnable> onEngine = Runnable::run;

    public MemoryKeyTable(RandomGenerator keys, int maxRegions) {
        this.keys = keys;
        this.maxRegions = maxRegions;
    }

    public RegisteredMemory register(ProtectionDomain pd, MemorySegment segment, int access) {
        return register(pd, segment, access, segment == null ? 0 : segment.address());
    }

    /** As {@link #register(ProtectionDomain, MemorySegment, int)}, at virtual address {@code iova} (ibv_reg_mr_iova). */
    public RegisteredMemory register(ProtectionDomain pd, MemorySegment segment, int access, long iova) {
        if (segment == null) throw new IllegalArgumentException("segment: must not be null");
        if (!segment.isNative()) throw new IllegalArgumentException("segment: must be off-heap (native), registered memory is DMA-able");
        if (segment.byteSize() == 0) throw new IllegalArgumentException("segment: length must be > 0");
        if (segment.byteSize() > Integer.MAX_VALUE) throw new IllegalArgumentException("segment: length must be < 2 GiB, was " + segment.byteSize());
        if (segment.isReadOnly() && (access & AccessFlags.LOCAL_WRITE) != 0) {
            throw new IllegalArgumentException("access: LOCAL_WRITE on a read-only segment");
        }
        AccessFlags.validateMr(access);
        if (byLkey.size() >= maxRegions) throw new IllegalStateException("mr: device limit of " + maxRegions + " regions reached");
        int lkey = freshKey(byLkey);
        int rkey = freshKey(byRkey);
        RegisteredMemory mr = new RegisteredMemory(this, pd, segment, iova, access, lkey, rkey);
        byLkey.put(lkey, mr);
        byRkey.put(rkey, mr);
        return mr;
    }

    private int freshKey(Int2ObjectHashMap<?> used) {
        int k;
        do {
            k = keys.nextInt();
        } while (k == 0 || used.containsKey(k));
        return k;
    }

    /** How to run a change on the engine thread; the device installs its control path here. */
    public void engineExecutor(java.util.function.Consumer<Runnable> executor) {
        this.onEngine = executor;
    }

    void deregister(RegisteredMemory mr) {
        mr.invalidate(); // stop new accesses at once, from any thread
        onEngine.accept(() -> remove(mr));
    }

    private void remove(RegisteredMemory mr) {
        if (byLkey.get(mr.lkey()) == mr) byLkey.remove(mr.lkey());
        if (byRkey.get(mr.rkey()) == mr) byRkey.remove(mr.rkey());
        if (lastLocal == mr) lastLocal = null;
        mr.invalidate();
    }

    /** Remote invalidate (SEND_WITH_INV) or LOCAL_INV: the rkey stops working. True when it was valid in {@code pd}. */
    public boolean invalidateRkey(int rkey, ProtectionDomain pd) {
        RegisteredMemory mr = byRkey.get(rkey);
        if (mr == null || mr.pd() != pd) return false;
        mr.invalidate();
        remove(mr);
        return true;
    }

    /** A remote access check: the region of {@code rkey} in {@code pd}, valid, with all of {@code rights}, covering the range. */
    public RegisteredMemory remote(int rkey, ProtectionDomain pd, long va, long len, int rights) {
        RegisteredMemory mr = byRkey.get(rkey);
        return check(mr, pd, va, len, rights);
    }

    /** A local access check for an SGE. */
    public RegisteredMemory local(int lkey, ProtectionDomain pd, long va, long len, int rights) {
        // a QP's SGEs name the same few regions packet after packet: the last one found goes first, the hash after it;
        // a region deregistered since is looked up again (its key may name a newer region by now)
        RegisteredMemory mr = lastLocal;
        if (mr == null || mr.lkey() != lkey || !mr.isValid()) {
            mr = byLkey.get(lkey);
            if (mr != null) lastLocal = mr;
        }
        return check(mr, pd, va, len, rights);
    }

    private RegisteredMemory check(RegisteredMemory mr, ProtectionDomain pd, long va, long len, int rights) {
        if (mr == null || !mr.isValid()) {
            lastFailure = BAD_KEY;
            return null;
        }
        if (mr.pd() != pd) {
            lastFailure = WRONG_PD;
            return null;
        }
        if ((mr.access() & rights) != rights) {
            lastFailure = NO_RIGHTS;
            return null;
        }
        if (!mr.contains(va, len)) {
            lastFailure = OUT_OF_BOUNDS;
            return null;
        }
        lastFailure = OK;
        return mr;
    }

    /** Why the last failed lookup failed. */
    public int lastFailure() {
        return lastFailure;
    }

    public int size() {
        return byLkey.size();
    }
}
