package org.urdma.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.Urdma;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/** The README's sample (kept verbatim there between the markers, checked by ReadmeSampleTest): one SEND, in one JVM. */
public final class Hello {
    private Hello() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println(run());
    }

    static String run() throws Exception {
        // README:begin
        Duration timeout = Duration.ofSeconds(10);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             RdmaServer server = pair.first().listen(0)) {
            // the server accepts on its own thread; connect retries until the listener answers
            CompletableFuture<RdmaConnection> accepted =
                    CompletableFuture.supplyAsync(() -> server.accept(EndpointOptions.defaults()), Thread::startVirtualThread);
            try (RdmaConnection client = pair.second().connect("127.0.0.1", server.port(), EndpointOptions.defaults());
                 RdmaConnection peer = accepted.get()) {
                MemoryRegion in = pair.first().register(64, AccessFlags.LOCAL_WRITE);
                peer.qp().postRecv(new ReceiveWorkRequest().wrId(1).addSge(in, 0, 64)); // before the client sends
                MemoryRegion out = pair.second().register(64, AccessFlags.LOCAL_WRITE);
                byte[] hello = "hello, urdma".getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(hello, 0, out.segment(), ValueLayout.JAVA_BYTE, 0, hello.length);
                client.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                        .addSge(out, 0, hello.length));
                Completions.await(client.sendCq(), timeout);
                int n = Completions.await(peer.recvCq(), timeout).byteLen();
                return new String(in.segment().asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            }
        }
        // README:end
    }
}
