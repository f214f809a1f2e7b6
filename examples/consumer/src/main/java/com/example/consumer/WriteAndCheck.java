package com.example.consumer;

import java.lang.foreign.ValueLayout;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.RemoteRegion;
import org.urdma.transport.api.Urdma;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/** An application on urdma's public API: one RDMA WRITE into memory the peer advertised, read back from that memory. */
public final class WriteAndCheck {
    private WriteAndCheck() {
    }

    public static void main(String[] args) throws Exception {
        System.out.printf("wrote 0x%x%n", writeAndReadBack(0x0123456789ABCDEFL));
    }

    /** Writes {@code value} into the peer's region over an RC connection; returns what the peer's memory then holds. */
    public static long writeAndReadBack(long value) throws Exception {
        java.time.Duration timeout = java.time.Duration.ofSeconds(10);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory()); RdmaServer server = pair.first().listen(0)) {
            MemoryRegion target = pair.first().register(4096, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            var accepted = java.util.concurrent.CompletableFuture.supplyAsync(() -> server.accept(
                    EndpointOptions.defaults().withPrivateData(RemoteRegion.of(target).toBytes())), Thread::startVirtualThread);
            try (RdmaConnection c = pair.second().connect("127.0.0.1", server.port(), EndpointOptions.defaults());
                 RdmaConnection peer = accepted.get()) {
                RemoteRegion r = RemoteRegion.fromBytes(c.peerPrivateData());
                MemoryRegion src = pair.second().register(8, AccessFlags.LOCAL_WRITE);
                src.segment().set(ValueLayout.JAVA_LONG, 0, value);
                c.qp().postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, 0, 8).remote(r.address() + 64, r.rkey()));
                Completions.await(c.sendCq(), timeout); // RC: acknowledged, so placed in the peer's memory
                return target.segment().get(ValueLayout.JAVA_LONG, 64);
            }
        }
    }
}
