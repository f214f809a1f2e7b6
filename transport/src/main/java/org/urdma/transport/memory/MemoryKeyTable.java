package org.urdma.transport.memory;

import java.lang.foreign.MemorySegment;
import java.util.random.RandomGenerator;
import org.agrona.collections.Int2ObjectHashMap;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MwType;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QueuePair;

/**
 * The device's memory keys: lkey/rkey → region. Keys are drawn from the generator the device is given
 * (a SecureRandom in production, seeded under simulation), so they cannot be guessed from each other.
 * Lookups check PD, validity, rights and bounds before a byte moves. Owned by the engine thread.
 */
public final class MemoryKeyTable {
    /** Reasons a lookup fails, for the right completion status or NAK. */
    public static final int OK = 0, BAD_KEY = 1, WRONG_PD = 2, NO_RIGHTS = 3, OUT_OF_BOUNDS = 4, WRONG_QP = 5;

    private final Int2ObjectHashMap<RegisteredMemory> byLkey = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<RegisteredMemory> byRkey = new Int2ObjectHashMap<>();
    /** Memory windows by index (rkey bits 31..8); no region's rkey has the index of a window, so either names one thing. */
    private final Int2ObjectHashMap<SoftMw> windows = new Int2ObjectHashMap<>();
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
        } while (k == 0 || used.containsKey(k) || windows.containsKey(k >>> 8));
        return k;
    }

    /** A new window of {@code type} in {@code pd} (ibv_alloc_mw): a fresh index no region's rkey shares, a random key. */
    public SoftMw allocMw(ProtectionDomain pd, MwType type) {
        if (type == null) throw new IllegalArgumentException("type: must be TYPE_1 or TYPE_2");
        if (windows.size() >= maxRegions) throw new IllegalStateException("mw: device limit of " + maxRegions + " windows reached");
        int index;
        do {
            index = keys.nextInt() >>> 8;
        } while (index == 0 || windows.containsKey(index) || regionHasIndex(index));
        SoftMw mw = new SoftMw(this, pd, type, index << 8 | (keys.nextInt() & 0xFF));
        windows.put(index, mw);
        return mw;
    }

    private boolean regionHasIndex(int index) {
        for (RegisteredMemory mr : byRkey.values()) {
            if (mr.rkey() >>> 8 == index) return true;
        }
        return false;
    }

    /** Most windows the table holds (the regions' limit). */
    public int maxWindows() {
        return maxRegions;
    }

    void dealloc(SoftMw mw) {
        onEngine.accept(() -> {
            unbind(mw);
            mw.qp = null;
            mw.state = SoftMw.State.INVALID;
            if (windows.get(mw.index) == mw) windows.remove(mw.index);
        });
    }

    /**
     * Binds {@code mw} through {@code qp} (engine thread), with rxe's checks: a type 1 window must be valid, a type 2 one
     * free, in the QP's PD and given a non-empty range; the region valid, in the window's PD, with MW_BIND, LOCAL_WRITE
     * behind writable rights, and the range inside it. False (nothing changed) when a check fails.
     */
    public boolean bind(QueuePair qp, SoftMw mw, int rkey, RegisteredMemory mr, long addr, long length, int access) {
        if (!checkWindowBind(qp, mw, mr, length) || (mr != null && !checkRegionBind(mw, mr, addr, length, access))) return false;
        unbind(mw);
        mw.rkey = (mw.rkey & 0xFFFFFF00) | (rkey & 0xFF);
        mw.access = access;
        mw.state = SoftMw.State.VALID;
        mw.addr = addr;
        mw.length = length;
        if (length > 0) {
            mw.mr = mr;
            mr.boundWindows++;
        }
        if (mw.type() == MwType.TYPE_2) mw.qp = qp;
        return true;
    }

    private boolean checkWindowBind(QueuePair qp, SoftMw mw, RegisteredMemory mr, long length) {
        if (windows.get(mw.index) != mw) return false;
        if (mw.type() == MwType.TYPE_1) return mw.state == SoftMw.State.VALID;
        return mw.state == SoftMw.State.FREE && qp.pd() == mw.pd() && mr != null && length > 0;
    }

    private static boolean checkRegionBind(SoftMw mw, RegisteredMemory mr, long addr, long length, int access) {
        if (!mr.isValid() || mr.pd() != mw.pd()) return false;
        if ((mr.access() & AccessFlags.MW_BIND) == 0) return false;
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 && (mr.access() & AccessFlags.LOCAL_WRITE) == 0) return false;
        return mr.contains(addr, length);
    }

    private static void unbind(SoftMw mw) {
        if (mw.mr != null) {
            mw.mr.boundWindows--;
            mw.mr = null;
        }
        mw.access = 0;
        mw.addr = 0;
        mw.length = 0;
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

    /**
     * Remote invalidate (SEND_WITH_INV) or LOCAL_INV: the rkey stops working. True when it was valid in {@code pd}: a
     * region with no window bound to it, or a bound type 2 window, which becomes free (rxe: type 1 windows are never invalidated).
     */
    public boolean invalidateRkey(int rkey, ProtectionDomain pd) {
        RegisteredMemory mr = byRkey.get(rkey);
        if (mr == null) return invalidateWindow(rkey, pd);
        if (mr.pd() != pd || mr.boundWindows > 0) return false;
        mr.invalidate();
        remove(mr);
        return true;
    }

    private boolean invalidateWindow(int rkey, ProtectionDomain pd) {
        SoftMw mw = windows.get(rkey >>> 8);
        if (mw == null || mw.rkey != rkey || mw.pd() != pd) return false;
        if (mw.type() == MwType.TYPE_1 || mw.state != SoftMw.State.VALID) return false;
        unbind(mw);
        mw.qp = null;
        mw.state = SoftMw.State.FREE;
        return true;
    }

    /**
     * A remote access check for {@code qp}: the region of {@code rkey} in {@code pd}, valid, with all of {@code rights},
     * covering the range; or, for a window's rkey, the region beneath a window that is valid, bound (to {@code qp}
     * for type 2), grants {@code rights} and covers the range (rxe's rxe_lookup_mw, bounds the window's).
     */
    public RegisteredMemory remote(int rkey, ProtectionDomain pd, QueuePair qp, long va, long len, int rights) {
        RegisteredMemory mr = byRkey.get(rkey);
        if (mr != null || windows.isEmpty()) return check(mr, pd, va, len, rights);
        return throughWindow(rkey, pd, qp, va, len, rights);
    }

    private RegisteredMemory throughWindow(int rkey, ProtectionDomain pd, QueuePair qp, long va, long len, int rights) {
        SoftMw mw = windows.get(rkey >>> 8);
        if (mw == null || mw.rkey != rkey || mw.state != SoftMw.State.VALID || mw.length == 0 || mw.mr == null || !mw.mr.isValid()) {
            lastFailure = BAD_KEY;
            return null;
        }
        if (mw.pd() != pd) {
            lastFailure = WRONG_PD;
            return null;
        }
        if (mw.type() == MwType.TYPE_2 && mw.qp != qp) {
            lastFailure = WRONG_QP;
            return null;
        }
        if ((mw.access & rights) != rights) {
            lastFailure = NO_RIGHTS;
            return null;
        }
        if (!mw.contains(va, len)) {
            lastFailure = OUT_OF_BOUNDS;
            return null;
        }
        lastFailure = OK;
        return mw.mr;
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

    /** Windows allocated and not deallocated. */
    public int windowCount() {
        return windows.size();
    }
}
