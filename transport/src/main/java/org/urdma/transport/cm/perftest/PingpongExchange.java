package org.urdma.transport.cm.perftest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * The whole ibv_rc/uc/ud_pingpong exchange (pp_client_exch_dest / pp_server_exch_dest): the client
 * writes its 52-byte message, reads the server's, writes "done\0"; the server reads (MSG_WAITALL),
 * writes its own — after moving its QP to RTR, which the caller does between {@link #serverRead} and
 * {@link #serverReply} — then reads "done\0". Blocking I/O only; every byte lands in the transcript.
 */
public final class PingpongExchange {

    private final InputStream in;
    private final OutputStream out;
    private final Transcript transcript = new Transcript();

    public PingpongExchange(InputStream in, OutputStream out) {
        this.in = Objects.requireNonNull(in, "in");
        this.out = Objects.requireNonNull(out, "out");
    }

    public Transcript transcript() {
        return transcript;
    }

    /** Client side, complete: returns the server's data. */
    public PingpongDest client(PingpongDest mine) throws IOException {
        write("address", PingpongMessage.encode(mine));
        PingpongDest theirs = PingpongMessage.decode(read("address", PingpongMessage.LENGTH));
        write("done", PingpongMessage.done());
        return theirs;
    }

    /** Server side, first half: the client's data. */
    public PingpongDest serverRead() throws IOException {
        return PingpongMessage.decode(read("address", PingpongMessage.LENGTH));
    }

    /** Server side, second half: our data, then the client's "done\0". */
    public void serverReply(PingpongDest mine) throws IOException {
        write("address", PingpongMessage.encode(mine));
        byte[] done = read("done", 5);
        if (!PingpongMessage.isDone(done)) {
            throw new ExchangeFormatException("pingpong client sent " + Transcript.printable(done)
                    + " where \"done\\0\" belongs");
        }
    }

    /**
     * ibv_srq_pingpong's exchange, client side: it always sends MAX_QP (256) messages, those past its QPs all zeros,
     * reads as many, then writes "done\0". Returns the server's first {@code count}.
     */
    public PingpongDest[] clientAll(PingpongDest[] mine) throws IOException {
        writeAll(mine);
        PingpongDest[] theirs = readAll(mine.length);
        write("done", PingpongMessage.done());
        return theirs;
    }

    /** ibv_srq_pingpong, server side, first half: the client's 256 messages, its first {@code count} returned. */
    public PingpongDest[] serverReadAll(int count) throws IOException {
        return readAll(count);
    }

    /** ibv_srq_pingpong, server side, second half (after RTR): our 256 messages, then the client's "done\0". */
    public void serverReplyAll(PingpongDest[] mine) throws IOException {
        writeAll(mine);
        byte[] done = read("done", 5);
        if (!PingpongMessage.isDone(done)) {
            throw new ExchangeFormatException("srq_pingpong client sent " + Transcript.printable(done) + " where \"done\\0\" belongs");
        }
    }

    /** MAX_QP of ibv_srq_pingpong: the number of address messages each way, whatever -q is. */
    public static final int SRQ_MAX_QP = 256;

    private void writeAll(PingpongDest[] mine) throws IOException {
        if (mine.length > SRQ_MAX_QP) throw new IllegalArgumentException("-q: at most " + SRQ_MAX_QP + " QPs, was " + mine.length);
        PingpongDest none = new PingpongDest(0, 0, 0, new byte[16]);
        for (int i = 0; i < SRQ_MAX_QP; i++) write("address " + i, PingpongMessage.encode(i < mine.length ? mine[i] : none));
    }

    private PingpongDest[] readAll(int count) throws IOException {
        PingpongDest[] theirs = new PingpongDest[count];
        for (int i = 0; i < SRQ_MAX_QP; i++) {
            PingpongDest d = PingpongMessage.decode(read("address " + i, PingpongMessage.LENGTH));
            if (i < count) {
                theirs[i] = d;
            } else if (d.qpn() != 0) {
                throw new ExchangeFormatException("srq_pingpong peer has more QPs than this side's " + count + ": give both the same -q");
            }
        }
        for (int i = 0; i < count; i++) {
            if (theirs[i].qpn() == 0) {
                throw new ExchangeFormatException("srq_pingpong peer has fewer QPs than this side's " + count + " (message " + i
                        + " is empty): give both the same -q");
            }
        }
        return theirs;
    }

    private void write(String step, byte[] b) throws IOException {
        out.write(b);
        out.flush();
        transcript.add(step, true, b);
    }

    private byte[] read(String step, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        transcript.add(step, false, b);
        if (b.length != n) {
            throw new EOFException("pingpong peer closed the connection during '" + step + "' after "
                    + b.length + " of " + n + " bytes");
        }
        return b;
    }
}
