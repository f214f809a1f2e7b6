package org.urdma.transport.link;

/**
 * The ECN codepoint RoCEv2 and PAXI Standard frames leave with, like a NIC's setting: ECN-capable ({@code ect0}, the
 * default, so a switch can CE-mark instead of dropping), {@code ect1}, or {@code not-ect}.
 */
public enum Ecn {
    NOT_ECT(0b00, "not-ect"),
    ECT1(0b01, "ect1"),
    ECT0(0b10, "ect0");

    private final int bits;
    private final String cliName;

    Ecn(int bits, String cliName) {
        this.bits = bits;
        this.cliName = cliName;
    }

    /** The two ECN bits of the IPv4 TOS / IPv6 traffic class. */
    public int bits() {
        return bits;
    }

    public String cliName() {
        return cliName;
    }

    public static Ecn named(String name) {
        for (Ecn e : values()) {
            if (e.cliName.equalsIgnoreCase(name)) return e;
        }
        throw new IllegalArgumentException("ecn: unknown '" + name + "', expected not-ect, ect0 or ect1");
    }
}
