package org.urdma.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.RemoteRegion;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * RDMA WRITE with immediate: the server advertises a region in its private data; the client writes {@code --count}
 * 4 KiB chunks into it, each with the chunk's index as immediate data; the server learns of each from a receive
 * completion carrying the immediate, and checks that chunk's bytes.
 */
public final class WriteImm {
    static final int CHUNK = 4096;

    private WriteImm() {
    }

    public static void main(String[] args) {
        ExampleMain.run("WriteImm", args, 16, WriteImm::server, WriteImm::client);
    }

    static byte pattern(int chunk, int j) {
        return (byte) (chunk * 31 + j * 7);
    }

    public static String server(RdmaServer listener, ExampleArgs a) {
        EndpointOptions o = EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT);
        // the region must exist before accept: its address and R_Key are the private data the client gets
        MemoryRegion target = listener.device().register((long) a.count() * CHUNK, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        try (RdmaConnection c = listener.accept(o.withPrivateData(RemoteRegion.of(target).toBytes()))) {
            ReceiveWorkRequest rwr = new ReceiveWorkRequest();
            for (int i = 0; i < Math.min(a.count(), o.depth()); i++) c.qp().postRecv(rwr.reset().wrId(i)); // WRITE_WITH_IMM takes a receive, no buffer
            c.barrier("receives posted", ExampleArgs.TIMEOUT);
            MemorySegment s = target.segment();
            for (int i = 0; i < a.count(); i++) {
                WorkCompletion wc = Completions.await(c.recvCq(), ExampleArgs.TIMEOUT);
                if (!wc.hasImm()) throw new IllegalStateException("data: completion " + i + " has no immediate data");
                int chunk = wc.immData();
                if (chunk != i) throw new IllegalStateException("data: immediate " + chunk + " where " + i + " was due");
                for (int j = 0; j < CHUNK; j++) {
                    if (s.get(ValueLayout.JAVA_BYTE, (long) chunk * CHUNK + j) != pattern(chunk, j)) {
                        throw new IllegalStateException("data: chunk " + chunk + " byte " + j + " is wrong");
                    }
                }
                if (i + o.depth() < a.count()) c.qp().postRecv(rwr.reset().wrId(i + o.depth()));
            }
            return "received " + a.count() + " writes with immediate, " + (long) a.count() * CHUNK + " bytes checked";
        }
    }

    public static String client(UrdmaDevice device, String host, int port, ExampleArgs a) {
        try (RdmaConnection c = device.connect(host, port, EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT))) {
            RemoteRegion r = RemoteRegion.fromBytes(c.peerPrivateData());
            if (r.length() < (long) a.count() * CHUNK) throw new IllegalStateException("data: the server's region is only " + r.length() + " bytes");
            MemoryRegion src = device.register((long) a.count() * CHUNK, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < a.count(); i++) {
                for (int j = 0; j < CHUNK; j++) src.segment().set(ValueLayout.JAVA_BYTE, (long) i * CHUNK + j, pattern(i, j));
            }
            c.barrier("receives posted", ExampleArgs.TIMEOUT);
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < a.count(); i++) {
                c.qp().postSend(wr.reset().wrId(i).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                        .addSge(src, (long) i * CHUNK, CHUNK).remote(r.address() + (long) i * CHUNK, r.rkey()).immData(i));
                Completions.await(c.sendCq(), ExampleArgs.TIMEOUT);
            }
            return "wrote " + a.count() + " chunks of " + CHUNK + " bytes with immediate data";
        }
    }
}
