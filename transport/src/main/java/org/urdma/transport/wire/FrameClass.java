package org.urdma.transport.wire;

/** What {@link AnyFrameDecoder#classify} found in a raw Ethernet frame. */
public enum FrameClass {
    PFC(null),
    PAUSE(null),
    ROCE1(FramingKind.ROCE1),
    ROCE2(FramingKind.ROCE2),
    PAXI_STANDARD(FramingKind.PAXI_STANDARD),
    PAXI_AFH1(FramingKind.PAXI_AFH1),
    PAXI_AFH2(FramingKind.PAXI_AFH2),
    PAXI_LITE(FramingKind.PAXI_LITE),
    /** Some other Ethernet frame (ARP, other IP traffic, other MAC control opcodes...). */
    OTHER(null),
    /** Shorter than an Ethernet header. */
    RUNT(null);

    private final FramingKind framing;

    FrameClass(final FramingKind framing) {
        this.framing = framing;
    }

    /** The framing that decodes this class, or null for MAC control and non-transport frames. */
    public FramingKind framing() {
        return framing;
    }
}
