package org.urdma.examples;

import java.lang.foreign.ValueLayout;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.RemoteRegion;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/**
 * RDMA READ: the server fills a region ({@code --count} × 4 KiB) and advertises it; the client reads it in 4 KiB
 * READs and checks every byte; a barrier keeps the server's region registered until the client is done. The server's
 * CPU takes no part in the transfer.
 */
public final class RdmaRead {
    static final int CHUNK = 4096;

    private RdmaRead() {
    }

    public static void main(String[] args) {
        ExampleMain.run("RdmaRead", args, 16, RdmaRead::server, RdmaRead::client);
    }

    static long word(long i) {
        return i * 0x9E3779B97F4A7C15L;
    }

    public static String server(RdmaServer listener, ExampleArgs a) {
        long bytes = (long) a.count() * CHUNK;
        MemoryRegion source = listener.device().register(bytes, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        for (long i = 0; i < bytes / 8; i++) source.segment().set(ValueLayout.JAVA_LONG, i * 8, word(i));
        EndpointOptions o = EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT).withPrivateData(RemoteRegion.of(source).toBytes());
        try (RdmaConnection c = listener.accept(o)) {
            c.barrier("done", ExampleArgs.TIMEOUT);
            return "served " + bytes + " bytes to RDMA READ";
        }
    }

    public static String client(UrdmaDevice device, String host, int port, ExampleArgs a) {
        try (RdmaConnection c = device.connect(host, port, EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT))) {
            RemoteRegion r = RemoteRegion.fromBytes(c.peerPrivateData());
            MemoryRegion dst = device.register(r.length(), AccessFlags.LOCAL_WRITE);
            SendWorkRequest wr = new SendWorkRequest();
            int chunks = (int) (r.length() / CHUNK);
            for (int i = 0; i < chunks; i++) {
                c.qp().postSend(wr.reset().wrId(i).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .addSge(dst, (long) i * CHUNK, CHUNK).remote(r.address() + (long) i * CHUNK, r.rkey()));
                Completions.await(c.sendCq(), ExampleArgs.TIMEOUT);
            }
            for (long i = 0; i < r.length() / 8; i++) {
                if (dst.segment().get(ValueLayout.JAVA_LONG, i * 8) != word(i)) {
                    throw new IllegalStateException("data: word " + i + " read from the server is wrong");
                }
            }
            c.barrier("done", ExampleArgs.TIMEOUT);
            return "read and checked " + r.length() + " bytes";
        }
    }
}
