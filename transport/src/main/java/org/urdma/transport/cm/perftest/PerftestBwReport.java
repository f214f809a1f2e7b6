package org.urdma.transport.cm.perftest;

/**
 * One side's bandwidth result as perftest's xchg_bw_reports sends it to the other (peers ≥ 5.33, no
 * report-per-port): five 8-byte fields, each exchanged on its own (client writes, server reads, then
 * the reverse), all big-endian: size ({@code hton_long}), iterations ({@code hton_long}), then peak
 * and average bandwidth in MB/s and the message rate in Mpps as byte-swapped IEEE doubles.
 */
public record PerftestBwReport(long size, long iterations, double bwPeak, double bwAverage, double msgRate) {

    /** Number of 8-byte fields exchanged, in this order. */
    public static final int FIELDS = 5;
    /** Bytes of each field. */
    public static final int FIELD_LENGTH = 8;

    /** Field {@code index} (0..4) as it goes on the wire. */
    public byte[] encodeField(int index) {
        long bits = switch (index) {
            case 0 -> size;
            case 1 -> iterations;
            case 2 -> Double.doubleToRawLongBits(bwPeak);
            case 3 -> Double.doubleToRawLongBits(bwAverage);
            case 4 -> Double.doubleToRawLongBits(msgRate);
            default -> throw new IllegalArgumentException("report field index must be 0..4, got " + index);
        };
        byte[] b = new byte[FIELD_LENGTH];
        for (int i = 0; i < FIELD_LENGTH; i++) {
            b[i] = (byte) (bits >>> (56 - 8 * i));
        }
        return b;
    }

    /** All five fields back to back (the bytes one side sends over the whole report exchange). */
    public byte[] encode() {
        byte[] all = new byte[FIELDS * FIELD_LENGTH];
        for (int f = 0; f < FIELDS; f++) {
            System.arraycopy(encodeField(f), 0, all, f * FIELD_LENGTH, FIELD_LENGTH);
        }
        return all;
    }

    /** Parses the five fields one side sent (40 bytes); rejects negative counts and non-finite rates. */
    public static PerftestBwReport decode(byte[] all) throws ExchangeFormatException {
        if (all == null || all.length != FIELDS * FIELD_LENGTH) {
            throw new ExchangeFormatException("perftest bandwidth report must be " + FIELDS * FIELD_LENGTH
                    + " bytes, got " + (all == null ? "none" : all.length));
        }
        long[] v = new long[FIELDS];
        for (int f = 0; f < FIELDS; f++) {
            long x = 0;
            for (int i = 0; i < FIELD_LENGTH; i++) {
                x = (x << 8) | (all[f * FIELD_LENGTH + i] & 0xff);
            }
            v[f] = x;
        }
        String[] names = {"size", "iterations", "bw_peak", "bw_avg", "msgRate_avg"};
        if (v[0] < 0 || v[1] < 0) {
            int f = v[0] < 0 ? 0 : 1;
            throw new ExchangeFormatException("perftest bandwidth report: " + names[f] + " at offset " + f * 8
                    + " is negative as a big-endian int64 (" + v[f] + ")");
        }
        double[] d = new double[3];
        for (int f = 2; f < FIELDS; f++) {
            d[f - 2] = Double.longBitsToDouble(v[f]);
            if (!Double.isFinite(d[f - 2]) || d[f - 2] < 0) {
                throw new ExchangeFormatException("perftest bandwidth report: " + names[f] + " at offset " + f * 8
                        + " is " + d[f - 2] + " as a big-endian double, expected a finite value >= 0");
            }
        }
        return new PerftestBwReport(v[0], v[1], d[0], d[1], d[2]);
    }
}
