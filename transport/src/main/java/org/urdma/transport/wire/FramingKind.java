package org.urdma.transport.wire;

/** The six wire formats (WIRE.md §2, §3, §9), each with the name the CLI and config files use. */
public enum FramingKind {
    /** Ethernet 0x8915 | GRH | BTH | ... | ICRC. */
    ROCE1("roce1", false, true),
    /** Ethernet | IPv4 or IPv6 | UDP 4791 (checksum 0) | BTH | ... | ICRC. */
    ROCE2("roce2", false, true),
    /** Ethernet | IPv4 | UDP 4791 (checksum 0xFFFF) | RH | ... | [ICRC]. */
    PAXI_STANDARD("paxi-standard", true, true),
    /** AFH1 | 0x88B5 | RH | ... | [ICRC]. */
    PAXI_AFH1("paxi-afh1", true, false),
    /** AFH2 | 0x88B5 | RH | ... | [ICRC]. */
    PAXI_AFH2("paxi-afh2", true, false),
    /** AFH2 | payload: no EtherType, RH or ICRC; carries only {@link Opcode#UC_SEND_ONLY}. */
    PAXI_LITE("paxi-lite", true, false);

    private final String cliName;
    private final boolean paxi;
    private final boolean ecnCapable;

    FramingKind(final String cliName, final boolean paxi, final boolean ecnCapable) {
        this.cliName = cliName;
        this.paxi = paxi;
        this.ecnCapable = ecnCapable;
    }

    public String cliName() {
        return cliName;
    }

    /** PAXI formats use the RH instead of the BTH (all but LITE) and may carry CBFC credits. */
    public boolean isPaxi() {
        return paxi;
    }

    /** True when the format has an IP header whose ECN bits a switch can mark (WIRE.md §7). */
    public boolean ecnCapable() {
        return ecnCapable;
    }

    /** True when the format's transport header is the 12-byte BTH (RoCE), false for the RH or none. */
    public boolean usesBth() {
        return this == ROCE1 || this == ROCE2;
    }

    /**
     * Whether this format can carry {@code opcode}: RoCE formats carry RC/UC/UD, CNP and URDMA FEC parity;
     * PAXI Standard/AFH1/AFH2 also the CBFC credit opcode; PAXI LITE only {@link Opcode#UC_SEND_ONLY}
     * (it has no transport header; see {@link Framings}).
     */
    public boolean canCarry(final int opcode) {
        if (this == PAXI_LITE) {
            return opcode == Opcode.UC_SEND_ONLY;
        }
        if (!OpcodeTable.known(opcode)) {
            return false;
        }
        return opcode != Opcode.PAXI_CBFC_CREDIT || paxi;
    }

    /** Parses a CLI name such as {@code paxi-afh2}; the error lists the valid names. */
    public static FramingKind parse(final String name) {
        for (final FramingKind k : values()) {
            if (k.cliName.equalsIgnoreCase(name.trim()) || k.name().equalsIgnoreCase(name.trim())) {
                return k;
            }
        }
        final StringBuilder valid = new StringBuilder();
        for (final FramingKind k : values()) {
            valid.append(valid.isEmpty() ? "" : ", ").append(k.cliName);
        }
        throw new IllegalArgumentException("framing: unknown '" + name + "'; valid: " + valid);
    }

    @Override
    public String toString() {
        return cliName;
    }
}
