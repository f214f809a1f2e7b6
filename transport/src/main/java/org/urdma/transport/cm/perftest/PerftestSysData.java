package org.urdma.transport.cm.perftest;

/**
 * perftest's check_sys_data (peers ≥ 5.32): the cycle buffer (page) size, then the cache-line size,
 * each a big-endian int32 exchanged on its own; both sides continue with the larger of each pair.
 */
public record PerftestSysData(int cycleBuffer, int cacheLineSize) {

    public static final int FIELD_LENGTH = 4;

    public PerftestSysData {
        if (cycleBuffer <= 0 || cacheLineSize <= 0) {
            throw new IllegalArgumentException("cycleBuffer and cacheLineSize must be > 0, got "
                    + cycleBuffer + " and " + cacheLineSize);
        }
    }

    public static byte[] encodeInt(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** One int32 field; {@code what} names it in the error for a value that is not a sane size. */
    public static int decodeInt(byte[] b, String what) throws ExchangeFormatException {
        if (b == null || b.length != FIELD_LENGTH) {
            throw new ExchangeFormatException("perftest " + what + " must be 4 bytes, got "
                    + (b == null ? "none" : b.length));
        }
        int v = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        if (v <= 0 || Integer.bitCount(v) != 1) {
            throw new ExchangeFormatException("perftest " + what + " is " + v
                    + " as a big-endian int32, expected a power of two > 0");
        }
        return v;
    }

    /** What both sides settle on: the larger of each. */
    public PerftestSysData max(PerftestSysData other) {
        return new PerftestSysData(Math.max(cycleBuffer, other.cycleBuffer),
                Math.max(cacheLineSize, other.cacheLineSize));
    }
}
