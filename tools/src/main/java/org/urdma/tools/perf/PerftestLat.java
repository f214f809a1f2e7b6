package org.urdma.tools.perf;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.HdrHistogram.Histogram;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WrOpcode;

/**
 * The latency tests (ib_write_lat, ib_send_lat, ib_read_lat; atomic-lat the same way) as perftest 6.06 runs them, one
 * side per process, over perftest's out-of-band exchange, so either side may be the stock tool:
 * <ul>
 *   <li>sequence (C/S writes): version, page and cache-line size, MTU; a key message per QP; a barrier after RTR; a key
 *       message per QP again; a barrier before the run (send-lat: once the receives are posted); the run; then
 *       ctx_close_connection (a barrier and "done") for send/read/atomic, while ib_write_lat just closes.</li>
 *   <li>the run is {@link PerfPatterns#pingPong} (write: the server writes first; send: the client sends first) or
 *       {@link PerfPatterns#roundTrip} by the client alone (read, atomics), one message size, {@code -n} iterations,
 *       no warm-up unless {@code --warmup-iters} asks for one (urdma's own: both sides must be given it).</li>
 *   <li>memory: the advertised address is the receive region (WRITE target, READ source); the send region is the
 *       source. As in ib_write_lat the write-lat buffers start zeroed, so both peers move zeros plus the count byte.</li>
 * </ul>
 * The urdma side checks its memory after the run: write-lat, that the peer's WRITEs filled exactly {@code size} bytes
 * of the receive region (zeros, the last byte {@code (byte) n}) and nothing after it; send-lat, that the last message
 * is {@code size} bytes in the receive region and nothing after it, and equal to urdma's pattern when the peer is urdma;
 * read-lat, the same for what was read. perftest fills send/read buffers with rand(), so against a stock peer the
 * bytes themselves cannot be predicted.
 */
final class PerftestLat {
    /** What the receive region holds before the run, so a write that lands shows (and one past the end too). */
    static final byte CANARY = (byte) 0xA5;
    static final int GUARD = 64;

    private final PerfTest test;
    private final PerfOptions o;
    private final WrOpcode op;
    private final int size;
    private final long iters;

    PerftestLat(PerfTest test, PerfOptions o, WrOpcode op, int size, long iters) {
        if (test.bandwidth()) throw new IllegalArgumentException("PerftestLat runs the latency tests, not " + test.command);
        this.test = test;
        this.o = o;
        this.op = op;
        this.size = size;
        this.iters = iters;
    }

    /** Bytes of buffer one QP registers: the send region, the receive region, room for a GRH and the guard. */
    long bufferBytes() {
        return PerfSide.bufferSize(size) + GUARD;
    }

    int run(NetPerfSession s, PrintStream out) {
        if (o.all && test != PerfTest.WRITE_LAT && test != PerfTest.SEND_LAT) {
            throw new IllegalArgumentException("-a: with the perftest exchange urdma perf sweeps sizes in write-lat and send-lat");
        }
        if (iters > Integer.MAX_VALUE) throw new IllegalArgumentException("-n: at most " + Integer.MAX_VALUE + ", was " + iters);
        if (o.warmupIters < 0 || o.warmupIters > Integer.MAX_VALUE - iters) {
            throw new IllegalArgumentException("--warmup-iters: must be in [0, " + (Integer.MAX_VALUE - iters) + "], was " + o.warmupIters);
        }
        long recvOffset = PerfSide.layout(size);
        prepare(s, recvOffset);
        s.establishPerftest(out, new long[] {s.bufs[0].address() + recvOffset});
        if (s.qp.type() == QpType.UD && size > s.pathMtu.bytes() && !o.all) {
            throw new IllegalArgumentException("-s: UD messages fit one MTU (" + s.pathMtu.bytes() + " bytes), was " + size);
        }
        NetPerf.header(out, test.title(o), s);
        PerfSide side = NetPerfSide.sides(s, size)[0];
        side.remoteVaIsTarget = true;
        PerftestLink link = s.perftest;
        link.readTimeout(s.barrierTimeout()); // the peer's whole run may pass between two barriers
        int n = (int) iters;
        int max = s.qp.type() == QpType.UD ? Math.min(size, s.pathMtu.bytes()) : size;
        // -a: 2, 4, ... up to the largest; ib_send_lat posts the size's receives and meets before each size, ib_write_lat
        // meets once and runs the sizes back to back (each size's count byte is one the smaller sizes never wrote)
        int[] sizes = o.all ? java.util.stream.IntStream.range(1, 24).map(i -> 1 << i).filter(x -> x <= max).toArray() : new int[] {size};
        boolean columns = false;
        Histogram h = null;
        int lastCount = n;
        for (int k = 0; k < sizes.length; k++) {
            int sz = sizes[k];
            int warm = k == 0 ? o.warmupIters : 0; // the JIT warms up on the first size; the rest run the same code
            lastCount = warm + n;
            if (op == WrOpcode.SEND) side.postRecvs(PerfPatterns.latRecvDepth(lastCount)); // before the barrier: no RNR, no UD loss
            if (k == 0 || op == WrOpcode.SEND) link.barrier(op == WrOpcode.SEND ? "receives posted" : "before the run");
            h = null;
            if (test.pattern == PerfTest.Pattern.PING_PONG || !s.server) {
                s.goInline(test.serverActive());
                if (test.pattern == PerfTest.Pattern.PING_PONG) {
                    h = PerfPatterns.pingPong(side, op, sz, n, warm);
                } else {
                    if (warm > 0) PerfPatterns.roundTrip(side, op, sz, warm);
                    h = PerfPatterns.roundTrip(side, op, sz, n);
                }
                s.resumeAgent();
            }
            if (h != null) {
                if (!columns) out.println(PerfRunner.LAT_COLUMNS);
                columns = true;
                row(out, sz, n, h);
            }
        }
        if (h != null) out.println(PerfCommand.LINE);
        if (test.atomic() && h != null) {
            out.printf(" %s results verified: the remote target moved by exactly one per operation%n", PerfTest.atomicName(o));
        }
        String check = verify(side, s.server, sizes[sizes.length - 1], lastCount);
        if (check != null) out.println(" " + check);
        if (test == PerfTest.WRITE_LAT) {
            s.settle(); // the last ACK leaves before the socket closes: ib_write_lat has no closing handshake
        } else {
            link.closeConnection();
        }
        return 0;
    }

    /** Fills this side's buffer as the run expects it: see the class comment. */
    private void prepare(NetPerfSession s, long recvOffset) {
        MemorySegment m = s.bufs[0].segment();
        if (test == PerfTest.WRITE_LAT) {
            m.fill((byte) 0);
        } else {
            for (long i = 0; i + 8 <= recvOffset; i += 8) m.set(ValueLayout.JAVA_LONG, i, PerfSide.pattern(i));
        }
        m.asSlice(recvOffset, m.byteSize() - recvOffset).fill(CANARY);
        if (test == PerfTest.READ_LAT && s.server) MemorySegment.copy(m, 0, m, recvOffset, size); // what a READ fetches
    }

    /** The urdma side's memory check after the run; null when this side's memory takes no part (read-lat server). */
    private String verify(PerfSide side, boolean server, int size, int count) {
        MemorySegment m = side.buf.segment();
        long at = side.recvOffset;
        long skip = op == WrOpcode.SEND && side.ud() ? PerfSide.GRH : 0;
        boolean receiver = switch (test) {
            case WRITE_LAT, SEND_LAT -> true;
            case READ_LAT -> !server;
            default -> false;
        };
        if (!receiver) return null;
        for (long i = at + skip + size; i < at + skip + size + GUARD; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != CANARY) {
                throw new NetPerf.CompletionError("memory check FAILED: byte " + (i - at - skip) + " of the receive region, past the "
                        + size + "-byte message, was written");
            }
        }
        if (test == PerfTest.WRITE_LAT) {
            // after a sweep the smaller sizes' count bytes ride inside the larger messages: only the last byte is known
            for (long i = at; i < at + size - 1 && !o.all; i++) {
                if (m.get(ValueLayout.JAVA_BYTE, i) != 0) {
                    throw new NetPerf.CompletionError("memory check FAILED: byte " + (i - at) + " of the WRITE target is 0x"
                            + Integer.toHexString(m.get(ValueLayout.JAVA_BYTE, i) & 0xff) + ", not 0 (both peers write zeros)");
                }
            }
            byte last = m.get(ValueLayout.JAVA_BYTE, at + size - 1);
            if (last != (byte) count) {
                throw new NetPerf.CompletionError("memory check FAILED: the last byte of the WRITE target is " + last
                        + ", not the count (byte) " + count);
            }
            return "remote memory verified: " + size + " bytes (" + (o.all ? "the sweep's last message" : "zeros")
                    + ", the last the count " + (byte) count + "), nothing past them";
        }
        long mismatch = MemorySegment.mismatch(m, 0, size, m, at + skip, at + skip + size);
        if (mismatch < 0) {
            return (test == PerfTest.READ_LAT ? "READ data" : "remote memory") + " verified: " + size
                    + " bytes equal urdma's pattern, nothing past them";
        }
        boolean allCanary = true;
        for (long i = at + skip; i < at + skip + size && allCanary; i++) allCanary = m.get(ValueLayout.JAVA_BYTE, i) == CANARY;
        if (allCanary && size > 1) {
            throw new NetPerf.CompletionError("memory check FAILED: nothing arrived in the " + size + "-byte receive region");
        }
        return (test == PerfTest.READ_LAT ? "READ data" : "received data") + ": " + size
                + " bytes in place, nothing past them (a stock peer's bytes are rand(): not compared)";
    }

    static void row(PrintStream out, int size, long iters, Histogram h) {
        out.printf(" %-7d %-10d     %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %.2f%n", size, iters,
                h.getMinValue() / 1000.0, h.getMaxValue() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                h.getMean() / 1000.0, h.getStdDeviation() / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0);
    }
}
