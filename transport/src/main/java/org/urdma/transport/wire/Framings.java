package org.urdma.transport.wire;

/** Factory of {@link Framing}s. Each call returns a new instance (framings hold per-thread state). */
public final class Framings {
    private Framings() {
    }

    /** The framing for {@code kind}, with ICRC on for the PAXI formats that may carry one. */
    public static Framing of(final FramingKind kind) {
        return of(kind, true);
    }

    /**
     * The framing for {@code kind}. {@code paxiIcrc} switches the optional ICRC of PAXI Standard/AFH1/AFH2
     * (both ends must agree); RoCE always has one, LITE never.
     */
    public static Framing of(final FramingKind kind, final boolean paxiIcrc) {
        return of(kind, paxiIcrc, true);
    }

    /**
     * As {@link #of(FramingKind, boolean)}; {@code inPlaceIcrc = false} makes decode never write to the frame
     * (ICRC check through a copied, masked header prefix: ~10 % slower on 4 KiB frames). Use it for frames in
     * read-only memory or frames other threads read while this one decodes.
     */
    public static Framing of(final FramingKind kind, final boolean paxiIcrc, final boolean inPlaceIcrc) {
        return switch (kind) {
            case ROCE1 -> new RoceV1Framing(inPlaceIcrc);
            case ROCE2, PAXI_STANDARD -> new IpUdpFraming(kind, paxiIcrc, inPlaceIcrc);
            case PAXI_AFH1, PAXI_AFH2 -> new AfhFraming(kind, paxiIcrc, inPlaceIcrc);
            case PAXI_LITE -> new LiteFraming();
        };
    }
}
