package org.urdma.verbs;

/**
 * Device limits ({@code ibv_device_attr}, the part urdma uses); {@code deviceCapFlags} in
 * {@code ibv_device_cap_flags} bits ({@link #MEM_WINDOW}, ...).
 */
public record DeviceAttributes(
        int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr, long maxMrSize, int maxQpRdAtom,
        int maxQpInitRdAtom, int maxSrq, int maxSrqWr, int maxInlineData, int maxMw, long deviceCapFlags) {
    /** {@code IBV_DEVICE_RC_RNR_NAK_GEN}: the responder sends RNR NAKs. */
    public static final long RC_RNR_NAK_GEN = 1L << 12;
    /** {@code IBV_DEVICE_MEM_WINDOW}: memory windows (type 1). */
    public static final long MEM_WINDOW = 1L << 17;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A}: type 2 windows bound to a QP number. */
    public static final long MEM_WINDOW_TYPE_2A = 1L << 23;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}: type 2 windows bound to a QP (what rxe and urdma offer). */
    public static final long MEM_WINDOW_TYPE_2B = 1L << 24;

    /** The names of the set {@code deviceCapFlags} bits urdma knows, in bit order, as ibv_devinfo prints them. */
    public static java.util.List<String> capFlagNames(long flags) {
        java.util.List<String> names = new java.util.ArrayList<>();
        if ((flags & RC_RNR_NAK_GEN) != 0) names.add("RC_RNR_NAK_GEN");
        if ((flags & MEM_WINDOW) != 0) names.add("MEM_WINDOW");
        if ((flags & MEM_WINDOW_TYPE_2A) != 0) names.add("MEM_WINDOW_TYPE_2A");
        if ((flags & MEM_WINDOW_TYPE_2B) != 0) names.add("MEM_WINDOW_TYPE_2B");
        return names;
    }
}
