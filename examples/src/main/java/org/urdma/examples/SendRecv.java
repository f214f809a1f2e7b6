package org.urdma.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * SEND/RECV on an RC connection: the client sends {@code --count} 64-byte messages, the server checks each and
 * answers with the number it received, which the client checks.
 */
public final class SendRecv {
    static final int SIZE = 64;

    private SendRecv() {
    }

    public static void main(String[] args) {
        ExampleMain.run("SendRecv", args, 100, SendRecv::server, SendRecv::client);
    }

    /** Message {@code i}: byte j is (i + j) mod 251. */
    static void fill(MemorySegment s, long offset, int i) {
        for (int j = 0; j < SIZE; j++) s.set(ValueLayout.JAVA_BYTE, offset + j, (byte) ((i + j) % 251));
    }

    static void check(MemorySegment s, long offset, int i) {
        for (int j = 0; j < SIZE; j++) {
            if (s.get(ValueLayout.JAVA_BYTE, offset + j) != (byte) ((i + j) % 251)) {
                throw new IllegalStateException("data: message " + i + " byte " + j + " is wrong");
            }
        }
    }

    public static String server(RdmaServer listener, ExampleArgs a) {
        EndpointOptions o = EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT);
        try (RdmaConnection c = listener.accept(o)) {
            int slots = o.depth();
            MemoryRegion in = c.device().register((long) slots * SIZE, AccessFlags.LOCAL_WRITE);
            ReceiveWorkRequest rwr = new ReceiveWorkRequest();
            for (int s = 0; s < slots; s++) c.qp().postRecv(rwr.reset().wrId(s).addSge(in, (long) s * SIZE, SIZE));
            c.barrier("receives posted", ExampleArgs.TIMEOUT);
            for (int i = 0; i < a.count(); i++) {
                WorkCompletion wc = Completions.await(c.recvCq(), ExampleArgs.TIMEOUT);
                int slot = (int) wc.wrId();
                if (wc.byteLen() != SIZE) throw new IllegalStateException("data: message " + i + " is " + wc.byteLen() + " bytes");
                check(in.segment(), (long) slot * SIZE, i);
                c.qp().postRecv(rwr.reset().wrId(slot).addSge(in, (long) slot * SIZE, SIZE));
            }
            MemoryRegion out = c.device().register(8, AccessFlags.LOCAL_WRITE);
            out.segment().set(ValueLayout.JAVA_LONG, 0, a.count());
            c.qp().postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(out, 0, 8));
            Completions.await(c.sendCq(), ExampleArgs.TIMEOUT);
            c.barrier("done", ExampleArgs.TIMEOUT); // the client stays until its ACK of the answer arrived
            return "received and checked " + a.count() + " messages of " + SIZE + " bytes";
        }
    }

    public static String client(UrdmaDevice device, String host, int port, ExampleArgs a) {
        try (RdmaConnection c = device.connect(host, port, EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT))) {
            MemoryRegion reply = device.register(8, AccessFlags.LOCAL_WRITE);
            c.qp().postRecv(new ReceiveWorkRequest().wrId(99).addSge(reply, 0, 8));
            c.barrier("receives posted", ExampleArgs.TIMEOUT);
            MemoryRegion out = device.register(SIZE, AccessFlags.LOCAL_WRITE);
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < a.count(); i++) {
                fill(out.segment(), 0, i);
                c.qp().postSend(wr.reset().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(out, 0, SIZE));
                Completions.await(c.sendCq(), ExampleArgs.TIMEOUT); // the buffer is reused: wait until it was sent
            }
            Completions.await(c.recvCq(), ExampleArgs.TIMEOUT);
            long got = reply.segment().get(ValueLayout.JAVA_LONG, 0);
            if (got != a.count()) throw new IllegalStateException("data: server says it received " + got + " of " + a.count());
            c.barrier("done", ExampleArgs.TIMEOUT);
            return "sent " + a.count() + " messages; server confirmed " + got;
        }
    }
}
