package org.urdma.transport.link.ethernet;

/**
 * Which link-level flow control a port obeys (PAXI's CBFC_EN: exclusive per link). PFC: received 802.1Qbb PFC and
 * 802.3x PAUSE frames pause the priorities they name. CBFC: PAXI per-VC credits returned in RH frames with opcode
 * 0xC0; PAUSE and PFC frames are then counted and ignored.
 */
public enum FlowControl {
    PFC("pfc"),
    CBFC("cbfc");

    private final String cliName;

    FlowControl(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** The mode named {@code name} ("pfc", "cbfc"); a one-line error naming the option otherwise. */
    public static FlowControl parse(String name) {
        for (FlowControl f : values()) {
            if (f.cliName.equalsIgnoreCase(name)) return f;
        }
        throw new IllegalArgumentException("flow-control: must be pfc or cbfc, was " + name);
    }
}
