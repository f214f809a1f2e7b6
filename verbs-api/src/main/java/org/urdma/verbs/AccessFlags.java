package org.urdma.verbs;

/** Memory region and QP access rights, bit values as {@code ibv_access_flags}. */
public final class AccessFlags {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** A memory region that memory windows may be bound to. */
    public static final int MW_BIND = 1 << 4;
    /** A window addressed from 0 rather than by virtual address (urdma refuses it, as rxe does for type 1). */
    public static final int ZERO_BASED = 1 << 5;
    /** Every data access right (not {@link #MW_BIND}). */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;
    /** The rights a memory window can grant. */
    public static final int REMOTE = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private AccessFlags() {}

    /** Checks a memory-region access mask: only known bits, and remote write/atomic need local write (as ibv_reg_mr). */
    public static void validateMr(int access) {
        if ((access & ~(ALL | MW_BIND)) != 0) {
            throw new IllegalArgumentException("access: unknown bits 0x" + Integer.toHexString(access & ~(ALL | MW_BIND)));
        }
        if ((access & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (access & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException("access: REMOTE_WRITE or REMOTE_ATOMIC requires LOCAL_WRITE");
        }
    }

    public static String toString(int access) {
        StringBuilder sb = new StringBuilder();
        if ((access & LOCAL_WRITE) != 0) sb.append("LOCAL_WRITE|");
        if ((access & REMOTE_WRITE) != 0) sb.append("REMOTE_WRITE|");
        if ((access & REMOTE_READ) != 0) sb.append("REMOTE_READ|");
        if ((access & REMOTE_ATOMIC) != 0) sb.append("REMOTE_ATOMIC|");
        if ((access & MW_BIND) != 0) sb.append("MW_BIND|");
        if ((access & ZERO_BASED) != 0) sb.append("ZERO_BASED|");
        return sb.isEmpty() ? "0" : sb.substring(0, sb.length() - 1);
    }
}
