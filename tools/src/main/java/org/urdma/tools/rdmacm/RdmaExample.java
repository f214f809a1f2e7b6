package org.urdma.tools.rdmacm;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaCmListener;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * librdmacm's example pair rdma_server / rdma_client (rdma-core librdmacm/examples) over urdma's rdma_cm: an RC
 * connection on port 7471 of RDMA_PS_TCP, the client SENDs 16 bytes, the server receives them and SENDs 16 back, then
 * both disconnect. The stock programs send zeros (static buffers); urdma sends {@link #MESSAGE}; a receive of any other
 * length, or other content, fails the run.
 */
public final class RdmaExample {
    /** Bytes each side sends, as the stock examples do. */
    static final int SIZE = 16;
    /** What urdma sends: 16 ASCII bytes. */
    static final byte[] MESSAGE = "urdma rdma_cm ex".getBytes(StandardCharsets.US_ASCII);

    private final UrdmaDevice device;
    private final Duration timeout;
    private final PrintStream out;

    RdmaExample(UrdmaDevice device, Duration timeout, PrintStream out) {
        this.device = device;
        this.timeout = timeout;
        this.out = out;
    }

    private EndpointOptions options() {
        return EndpointOptions.defaults().withDepth(4).withTimeout(timeout);
    }

    /** rdma_server: one client; returns the 16 bytes it sent. */
    byte[] server(int port) {
        MemoryRegion send = device.register(SIZE, AccessFlags.LOCAL_WRITE);
        MemoryRegion recv = device.register(SIZE, AccessFlags.LOCAL_WRITE);
        try (RdmaCmListener l = device.rdmaCm().listen(port)) {
            out.println("rdma_server: listening on port " + port); // what a caller waits for before it starts the client
            try (RdmaConnection c = l.accept(options())) {
                c.qp().postRecv(new ReceiveWorkRequest().wrId(1).addSge(recv, 0, SIZE)); // a SEND before this meets RNR NAKs
                byte[] got = receive(c, recv);
                send(c, send);
                out.println("rdma_server: received " + HexFormat.of().formatHex(got) + ", sent 16 bytes back");
                return got;
            }
        }
    }

    /** rdma_client: connects, SENDs 16 bytes, receives 16; returns them. */
    byte[] client(String address, int port) {
        MemoryRegion send = device.register(SIZE, AccessFlags.LOCAL_WRITE);
        MemoryRegion recv = device.register(SIZE, AccessFlags.LOCAL_WRITE);
        try (RdmaConnection c = device.rdmaCm().connect(address, port, options())) {
            c.qp().postRecv(new ReceiveWorkRequest().wrId(1).addSge(recv, 0, SIZE));
            send(c, send);
            byte[] got = receive(c, recv);
            out.println("rdma_client: sent 16 bytes, received " + HexFormat.of().formatHex(got));
            return got;
        }
    }

    private void send(RdmaConnection c, MemoryRegion send) {
        MemorySegment.copy(MESSAGE, 0, send.segment(), ValueLayout.JAVA_BYTE, 0, SIZE);
        c.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(send, 0, SIZE));
        WorkCompletion wc = Completions.await(c.sendCq(), timeout);
        if (wc.status() != WcStatus.SUCCESS) throw new IllegalStateException("send: " + wc.status());
    }

    private byte[] receive(RdmaConnection c, MemoryRegion recv) {
        WorkCompletion wc = Completions.await(c.recvCq(), timeout);
        if (wc.status() != WcStatus.SUCCESS) throw new IllegalStateException("receive: " + wc.status());
        if (wc.byteLen() != SIZE) throw new IllegalStateException("receive: " + wc.byteLen() + " bytes, the examples send " + SIZE);
        byte[] got = recv.segment().asSlice(0, SIZE).toArray(ValueLayout.JAVA_BYTE);
        if (!java.util.Arrays.equals(got, new byte[SIZE]) && !java.util.Arrays.equals(got, MESSAGE)) {
            throw new IllegalStateException("receive: " + HexFormat.of().formatHex(got) + " is neither the stock example's zeros nor urdma's message");
        }
        return got;
    }
}
