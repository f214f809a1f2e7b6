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
