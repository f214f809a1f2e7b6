package org.urdma.transport.cm.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * perftest 6.06's plain-TCP out-of-band exchange (port 18515, not rdma_cm), one step per method. The
 * order of a bandwidth test, as captured between two stock ib_write_bw 6.06 (Debian perftest 4.5-0.17):
 * <ol>
 *   <li>{@link #exchangeVersion} — 16-byte version string (the stock tool sleeps 1 s after connect first)</li>
 *   <li>{@link #exchangeSysData} — page (cycle buffer) size, cache-line size</li>
 *   <li>{@link #exchangeMtu} — MTU enum</li>
 *   <li>{@link #exchangeKeys} — the 108-byte key message, once per QP</li>
 *   <li>{@link #exchangeKeys} twice more — barriers after both sides moved to RTR</li>
 *   <li>the client runs; then {@link #exchangeKeys} (barrier) and {@link #exchangeBwReport} (in a
 *       half-duplex test the server's report fields are whatever its stack held: only the client's are
 *       meaningful)</li>
 *   <li>{@link #exchangeKeys} once more (ctx_close_connection), then {@link #exchangeDone}, then close</li>
 * </ol>
 * Other tools, captured the same way (C/S = client/server write, bytes): ib_read_bw, ib_atomic_bw and
 * UC ib_write_bw follow ib_write_bw exactly; ib_send_bw (RC, UC, UD) has five key exchanges, no report,
 * then "done"; ib_send_lat and ib_read_lat five key exchanges then "done"; ib_write_lat four key
 * exchanges and a plain close. See interop/README.md.
 *
 * <p>At every step except "done" the client writes then reads and the server reads then writes
 * (ctx_xchg_data); "done" is written by both at once, the server's usually first. This class only does
 * blocking I/O on the streams it is given; it has no threads, clocks or timers (the caller sets socket
 * timeouts) and records every byte in a {@link Transcript}.
 */
public final class PerftestExchange {

    private final Role role;
    private final InputStream in;
    private final OutputStream out;
    private final Transcript transcript = new Transcript();

    /** Key messages as {@link PerftestKeysBinary} (the exchange over rdma_cm) rather than {@link PerftestKeys}' text. */
    private final boolean binaryKeys;

    public PerftestExchange(Role role, InputStream in, OutputStream out) {
        this(role, in, out, false);
    }

    /**
     * @param binaryKeys the exchange runs over an rdma_cm QP (perftest's -R): each write is one SEND, each read one
     *                   received message, and key messages are the binary {@code struct pingpong_dest}
     */
    public PerftestExchange(Role role, InputStream in, OutputStream out, boolean binaryKeys) {
        this.role = Objects.requireNonNull(role, "role");
        this.in = Objects.requireNonNull(in, "in");
        this.out = Objects.requireNonNull(out, "out");
        this.binaryKeys = binaryKeys;
    }

    public Role role() {
        return role;
    }

    public Transcript transcript() {
        return transcript;
    }

    /** Sends ours, returns the peer's version; refuses a peer older than 5.70 as perftest does. */
    public String exchangeVersion(String mine) throws IOException {
        String theirs = PerftestVersion.decode(exchange("version", PerftestVersion.encode(mine), PerftestVersion.LENGTH));
        if (!PerftestVersion.isCompatible(theirs)) {
            throw new ExchangeFormatException("peer perftest version '" + theirs + "' is older than "
                    + PerftestVersion.MINIMUM + " (perftest 6.06 refuses it too)");
        }
        return theirs;
    }

    /** Returns the peer's page and cache-line sizes (each side then uses the larger, see {@link PerftestSysData#max}). */
    public PerftestSysData exchangeSysData(PerftestSysData mine) throws IOException {
        int page = PerftestSysData.decodeInt(exchange("page size",
                PerftestSysData.encodeInt(mine.cycleBuffer()), 4), "page size");
        int line = PerftestSysData.decodeInt(exchange("cache line size",
                PerftestSysData.encodeInt(mine.cacheLineSize()), 4), "cache line size");
        return new PerftestSysData(page, line);
    }

    /** Returns the peer's ibv_mtu enum (both then use {@link PerftestMtu#negotiate}). */
    public int exchangeMtu(int mineEnum) throws IOException {
        return PerftestMtu.decode(exchange("mtu", PerftestMtu.encode(mineEnum), PerftestMtu.LENGTH));
    }

    /** One key message each way: connection data, or a barrier (the same message again). */
    public PerftestDest exchangeKeys(PerftestDest mine) throws IOException {
        if (binaryKeys) return PerftestKeysBinary.decode(exchange("keys", PerftestKeysBinary.encode(mine), PerftestKeysBinary.LENGTH));
        return PerftestKeys.decode(exchange("keys", PerftestKeys.encode(mine), PerftestKeys.LENGTH));
    }

    /**
     * The five report fields, each exchanged on its own as xchg_bw_reports does. Returns the peer's 40
     * raw bytes: a half-duplex server sends uninitialised memory here, so only the side that knows the
     * peer ran the test (the server, about its client) should {@link PerftestBwReport#decode} them.
     */
    public byte[] exchangeBwReport(PerftestBwReport mine) throws IOException {
        byte[] theirs = new byte[PerftestBwReport.FIELDS * PerftestBwReport.FIELD_LENGTH];
        String[] names = {"report size", "report iterations", "report bw_peak", "report bw_avg", "report msgRate"};
        for (int f = 0; f < PerftestBwReport.FIELDS; f++) {
            byte[] b = exchange(names[f], mine.encodeField(f), PerftestBwReport.FIELD_LENGTH);
            System.arraycopy(b, 0, theirs, f * PerftestBwReport.FIELD_LENGTH, PerftestBwReport.FIELD_LENGTH);
        }
        return theirs;
    }

    /** The closing "done\0" both sides write before closing; we write ours, then read theirs. */
    public void exchangeDone() throws IOException {
        write("done", PingpongMessage.done());
        byte[] theirs = read("done", 5);
        if (!PingpongMessage.isDone(theirs)) {
            throw new ExchangeFormatException("perftest peer sent " + Transcript.printable(theirs)
                    + " where \"done\\0\" belongs");
        }
    }

    /** One step of ctx_xchg_data: the client writes first, the server reads first. */
    byte[] exchange(String step, byte[] mine, int theirLength) throws IOException {
        if (role == Role.CLIENT) {
            write(step, mine);
            return read(step, theirLength);
        }
        byte[] theirs = read(step, theirLength);
        write(step, mine);
        return theirs;
    }

    private void write(String step, byte[] b) throws IOException {
        out.write(b);
        out.flush();
        transcript.add(step, true, b);
    }

    private byte[] read(String step, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            transcript.add(step, false, b);
            throw new EOFException("perftest peer closed the connection during '" + step + "' after "
                    + b.length + " of " + n + " bytes");
        }
        transcript.add(step, false, b);
        return b;
    }
}
