package org.urdma.transport.cm.perftest;

/**
 * perftest's MTU exchange (check_mtu, peers ≥ 5.31): {@code sprintf(cur, "%d", enum ibv_mtu)} and then
 * only {@code sizeof(char[2])} bytes are sent, so an enum 1..5 travels as its digit and a NUL. Each
 * side then uses the smaller of the two enums when the peer's is valid.
 */
public final class PerftestMtu {

    /** Bytes on the wire. */
    public static final int LENGTH = 2;

    private PerftestMtu() {}

    /** ibv_mtu enum (1 = 256 ... 5 = 4096) for an MTU in bytes. */
    public static int enumOf(int mtuBytes) {
        return switch (mtuBytes) {
            case 256 -> 1;
            case 512 -> 2;
            case 1024 -> 3;
            case 2048 -> 4;
            case 4096 -> 5;
            default -> throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096, got " + mtuBytes);
        };
    }

    /** MTU in bytes for an ibv_mtu enum 1..5. */
    public static int bytesOf(int mtuEnum) {
        requireValid(mtuEnum);
        return 128 << mtuEnum;
    }

    public static byte[] encode(int mtuEnum) {
        requireValid(mtuEnum);
        return new byte[] {(byte) ('0' + mtuEnum), 0};
    }

    /** The peer's enum; perftest reads it with strtol, we insist on one digit 1..5 and a NUL. */
    public static int decode(byte[] m) throws ExchangeFormatException {
        if (m == null || m.length != LENGTH) {
            throw new ExchangeFormatException("perftest MTU must be " + LENGTH + " bytes, got "
                    + (m == null ? "none" : m.length));
        }
        int d = m[0] - '0';
        if (d < 1 || d > 5) {
            throw new ExchangeFormatException("perftest MTU: byte 0 is " + HexFields.describe(m[0] & 0xff)
                    + ", expected an ibv_mtu enum digit '1'..'5'");
        }
        if (m[1] != 0) {
            throw new ExchangeFormatException("perftest MTU: byte 1 is " + HexFields.describe(m[1] & 0xff)
                    + ", expected the NUL after the digit");
        }
        return d;
    }

    /** What both sides settle on: the smaller enum. */
    public static int negotiate(int localEnum, int remoteEnum) {
        requireValid(localEnum);
        requireValid(remoteEnum);
        return Math.min(localEnum, remoteEnum);
    }

    private static void requireValid(int mtuEnum) {
        if (mtuEnum < 1 || mtuEnum > 5) {
            throw new IllegalArgumentException("ibv_mtu enum must be 1..5 (256..4096 bytes), got " + mtuEnum);
        }
    }
}
