package org.urdma.transport.engine;

import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.memory.SoftMw;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.MemoryWindow;
import org.urdma.verbs.MwType;
import org.urdma.verbs.SendWorkRequest;

/**
 * A BIND_MW request's checks at post time, those rdma-core's ibv_bind_mw and rxe's rxe_check_bind_mw make that do not
 * depend on the window's state (which the engine checks when it executes the bind): the window and region are this
 * device's, in one protection domain, the region has MW_BIND and backs the rights, the range lies inside it.
 */
final class BindChecks {
    private BindChecks() {}

    /** Throws IllegalArgumentException whose message starts with {@code where} and names the field a request breaks. */
    static void check(SoftQp qp, SendWorkRequest wr, String where) {
        SoftMw mw = window(qp, wr.bindMwWindow(), where);
        if (mw.type() == MwType.TYPE_2 && mw.pd() != qp.pd) {
            throw new IllegalArgumentException(where + ": a type 2 mw must be in the QP's protection domain");
        }
        if (wr.bindRkey() >>> 8 != mw.index()) {
            throw new IllegalArgumentException(where + ": rkey 0x" + Integer.toHexString(wr.bindRkey()) + " must keep the window's index 0x"
                    + Integer.toHexString(mw.index()) + " (only its low 8 bits change, see MemoryWindow.incRkey)");
        }
        checkAccess(wr.bindAccess(), where);
        MemoryRegion mr = wr.bindMr();
        if (mr == null) {
            if (mw.type() == MwType.TYPE_2) {
                throw new IllegalArgumentException(where + ": mr must be set: a type 2 window is bound to a non-empty range (LOCAL_INV frees it)");
            }
            if (wr.bindAddr() != 0 || wr.bindLength() != 0) {
                throw new IllegalArgumentException(where + ": mr must be set for a non-empty range (addr 0, length 0 unbinds)");
            }
            return;
        }
        checkRegion(qp, mw, mr, wr, where);
    }

    private static SoftMw window(SoftQp qp, MemoryWindow w, String where) {
        if (w == null) throw new IllegalArgumentException(where + ": mw must not be null");
        if (!(w instanceof SoftMw mw) || !mw.of(qp.device.keys())) {
            throw new IllegalArgumentException(where + ": mw is not a window of this device");
        }
        return mw;
    }

    private static void checkAccess(int access, String where) {
        if ((access & AccessFlags.ZERO_BASED) != 0) {
            throw new IllegalArgumentException(where + ": access ZERO_BASED is not supported (windows are addressed by virtual address)");
        }
        if ((access & ~(AccessFlags.REMOTE | AccessFlags.LOCAL_WRITE)) != 0) {
            throw new IllegalArgumentException(where + ": access has bits a window cannot grant: 0x"
                    + Integer.toHexString(access & ~(AccessFlags.REMOTE | AccessFlags.LOCAL_WRITE)));
        }
    }

    private static void checkRegion(SoftQp qp, SoftMw mw, MemoryRegion m, SendWorkRequest wr, String where) {
        if (!(m instanceof RegisteredMemory mr) || !mr.of(qp.device.keys())) {
            throw new IllegalArgumentException(where + ": mr is not a region of this device");
        }
        if (mr.pd() != mw.pd()) throw new IllegalArgumentException(where + ": mr is in another protection domain than the window");
        if (!mr.isValid()) throw new IllegalArgumentException(where + ": mr is deregistered");
        if ((mr.access() & AccessFlags.MW_BIND) == 0) throw new IllegalArgumentException(where + ": mr lacks MW_BIND access");
        if ((wr.bindAccess() & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 && (mr.access() & AccessFlags.LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException(where + ": access REMOTE_WRITE or REMOTE_ATOMIC needs LOCAL_WRITE on mr");
        }
        if (wr.bindLength() < 0) throw new IllegalArgumentException(where + ": length must be >= 0, was " + wr.bindLength());
        if (mw.type() == MwType.TYPE_2 && wr.bindLength() == 0) {
            throw new IllegalArgumentException(where + ": length must be > 0 for a type 2 window (LOCAL_INV frees it)");
        }
        if (!mr.contains(wr.bindAddr(), wr.bindLength())) {
            throw new IllegalArgumentException(where + ": range 0x" + Long.toHexString(wr.bindAddr()) + "+" + wr.bindLength()
                    + " lies outside mr 0x" + Long.toHexString(mr.address()) + "+" + mr.length());
        }
    }
}
