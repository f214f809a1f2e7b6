package org.urdma.examples;

import java.util.concurrent.CompletableFuture;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;

/** Runs one example's roles as its command line says, printing each side's result line; exit 1 with one line on error. */
final class ExampleMain {
    interface Server {
        String serve(RdmaServer listener, ExampleArgs a);
    }

    interface Client {
        String run(UrdmaDevice device, String host, int port, ExampleArgs a);
    }

    /**
     * A thread per task: the roles block (accept, barriers, CQ waits), and the common fork-join pool has one thread
     * on a 2-core machine, where a blocked server would starve its own clients.
     */
    static final java.util.concurrent.Executor THREADS = r -> Thread.ofPlatform().daemon().start(r);

    private ExampleMain() {
    }

    static void run(String name, String[] args, int defaultCount, Server server, Client client) {
        try {
            ExampleArgs a = ExampleArgs.parse(args, defaultCount);
            switch (a.role()) {
                case "local" -> {
                    try (Urdma.MemoryPair pair = Urdma.memoryPair(a.device()); RdmaServer l = pair.first().listen(0)) {
                        CompletableFuture<String> s = CompletableFuture.supplyAsync(() -> server.serve(l, a), THREADS);
                        System.out.println("client: " + client.run(pair.second(), "127.0.0.1", l.port(), a));
                        System.out.println("server: " + s.join());
                    }
                }
                case "server" -> {
                    try (UrdmaDevice d = Urdma.open(a.device()); RdmaServer l = d.listen(a.port())) {
                        System.out.println("server: " + server.serve(l, a));
                    }
                }
                default -> {
                    try (UrdmaDevice d = Urdma.open(a.device())) {
                        System.out.println("client: " + client.run(d, a.host(), a.port(), a));
                    }
                }
            }
        } catch (RuntimeException e) {
            Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
            System.err.println(name + ": " + t.getMessage());
            System.exit(1);
        }
    }
}
