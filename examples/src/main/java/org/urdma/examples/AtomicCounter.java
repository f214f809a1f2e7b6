package org.urdma.examples;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * A counter in the server's memory shared by {@code --clients} clients (one connection each), each adding 1
 * {@code --count} times with ATOMIC FETCH_AND_ADD. Each client checks that the values it fetched increase; the server
 * checks the counter equals clients × count once every client is done; the fetched values of all clients together
 * are 0 .. clients × count − 1, each once.
 */
public final class AtomicCounter {
    private AtomicCounter() {
    }

    public static void main(String[] args) {
        ExampleMain.run("AtomicCounter", args, 100, AtomicCounter::server, AtomicCounter::clients);
    }

    public static String server(RdmaServer listener, ExampleArgs a) {
        MemoryRegion counter = listener.device().register(8, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
        EndpointOptions o = EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT).withPrivateData(RemoteRegion.of(counter).toBytes());
        List<RdmaConnection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < a.clients(); i++) connections.add(listener.accept(o));
            List<CompletableFuture<Void>> done = connections.stream()
                    .map(c -> CompletableFuture.runAsync(() -> c.barrier("done", ExampleArgs.TIMEOUT), ExampleMain.THREADS)).toList();
            done.forEach(CompletableFuture::join);
        } finally {
            connections.forEach(RdmaConnection::close);
        }
        long value = counter.segment().get(ValueLayout.JAVA_LONG, 0);
        long want = (long) a.clients() * a.count();
        if (value != want) throw new IllegalStateException("data: counter is " + value + ", expected " + want);
        return "counter is " + value + " after " + a.clients() + " clients × " + a.count() + " fetch-and-adds";
    }

    /** All clients of this process, each on its own connection and thread. */
    public static String clients(UrdmaDevice device, String host, int port, ExampleArgs a) {
        List<CompletableFuture<long[]>> runs = new ArrayList<>();
        for (int i = 0; i < a.clients(); i++) runs.add(CompletableFuture.supplyAsync(() -> fetchAdds(device, host, port, a.count()), ExampleMain.THREADS));
        long total = 0;
        for (CompletableFuture<long[]> r : runs) total += r.join().length;
        return a.clients() + " clients did " + total + " fetch-and-adds, each saw its values increase";
    }

    /** One client: {@code count} fetch-and-adds of 1; returns the values fetched, checked to increase. */
    public static long[] fetchAdds(UrdmaDevice device, String host, int port, int count) {
        try (RdmaConnection c = device.connect(host, port, EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT))) {
            RemoteRegion r = RemoteRegion.fromBytes(c.peerPrivateData());
            MemoryRegion old = device.register(8, AccessFlags.LOCAL_WRITE);
            SendWorkRequest wr = new SendWorkRequest();
            long[] fetched = new long[count];
            for (int i = 0; i < count; i++) {
                c.qp().postSend(wr.reset().wrId(i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                        .addSge(old, 0, 8).remote(r.address(), r.rkey()).atomic(1, 0));
                Completions.await(c.sendCq(), ExampleArgs.TIMEOUT);
                fetched[i] = old.segment().get(ValueLayout.JAVA_LONG, 0);
                if (i > 0 && fetched[i] <= fetched[i - 1]) {
                    throw new IllegalStateException("data: fetch " + i + " returned " + fetched[i] + " after " + fetched[i - 1]);
                }
            }
            c.barrier("done", ExampleArgs.TIMEOUT);
            return fetched;
        }
    }
}
