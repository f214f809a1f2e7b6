package org.urdma.express;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.urdma.express.hash.ManifestWriter;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.protocol.Message;
import org.urdma.express.receiver.ReceiverSession;
import org.urdma.express.receiver.Server;
import org.urdma.express.safety.TokenAuth;
import org.urdma.express.sender.Sender;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.session.RdmaChannel;
import org.urdma.express.session.RdmaListener;
import org.urdma.express.session.SessionMemory;
import org.urdma.express.tcp.TcpConnector;
import org.urdma.express.tcp.TcpListener;
import org.urdma.express.tcp.TcpOptions;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;

/**
 * Runs a copy: to a server, or with both ends in this process over the memory link (or loopback TCP). A connection
 * lost part way is made again and the copy resumes (durable blocks are not sent again), up to {@code retries} times.
 * The transport is the {@link Connector}'s: RDMA in the WAN mode, or kernel TCP; everything else is the same code.
 */
public final class Copier {
    private Copier() {
    }

    /** Opens a new connection to one server, for each attempt of a copy. */
    public interface Connector {
        /**
         * @throws RdmaConnectException or {@link UncheckedIOException} when it cannot connect (a later attempt may)
         * @throws IllegalStateException when the server refuses, or does not agree on the WAN mode without {@code allowGbn}
         */
        ControlChannel connect();

        /** {@return the server, as HOST:PORT} */
        String server();
    }

    /** {@return RC connections of {@code device} to {@code host:port}, in the WAN mode the options offer} */
    public static Connector rdma(UrdmaDevice device, String host, int port, CopyOptions o) {
        return new Connector() {
            @Override
            public ControlChannel connect() {
                RdmaConnection c = device.connect(host, port, RdmaListener.endpoint(o.wanOffer(), o.timeout(), TokenAuth.privateData(o.token())));
                if (o.wan() && !c.wan().on() && !o.allowGbn()) {
                    c.close();
                    throw new IllegalStateException("server " + host + ":" + port + " does not agree on the WAN mode; --allow-gbn copies with go-back-N");
                }
                return new RdmaChannel(c, new SessionMemory(device.pd()), 256);
            }

            @Override
            public String server() {
                return host + ":" + port;
            }
        };
    }

    /** {@return sessions of {@code t.streams()} kernel TCP connections to {@code host:port}} */
    public static Connector tcp(String host, int port, TcpOptions t, CopyOptions o) {
        return new Connector() {
            @Override
            public ControlChannel connect() {
                return TcpConnector.connect(host, port, t, TokenAuth.privateData(o.token()), o.timeout());
            }

            @Override
            public String server() {
                return host + ":" + port;
            }
        };
    }

    /**
     * Pushes {@code sources} to the server at {@code host:port}, into {@code destination} under its root.
     *
     * @throws IllegalStateException when the server refuses (one line), or the peer does not agree on the WAN mode
     *                               and {@code allowGbn} is off
     */
    public static CopyResult push(UrdmaDevice device, String host, int port, List<Path> sources, String destination, CopyOptions o,
                                  int retries, TransferCounters counters, Consumer<String> warn) {
        return push(rdma(device, host, port, o), sources, destination, o, retries, counters, warn);
    }

    /** Pushes {@code sources} through {@code connector}'s server, into {@code destination} under its root. */
    public static CopyResult push(Connector connector, List<Path> sources, String destination, CopyOptions o,
                                  int retries, TransferCounters counters, Consumer<String> warn) {
        long start = System.nanoTime();
        long id = Sender.copyId(sources, destination);
        Set<String> done = new HashSet<>();
        ManifestWriter manifest = new ManifestWriter();
        List<String> lostOnTheWay = new ArrayList<>();
        long skipped = 0;
        for (int attempt = 0; ; attempt++) {
            CopyResult r;
            try {
                r = once(connector, sources, destination, o, id, done, manifest, counters, warn);
            } catch (RdmaConnectException | UncheckedIOException e) {
                if (attempt >= retries || lostOnTheWay.isEmpty()) throw e;
                lostOnTheWay.add(e.getMessage());
                continue;
            }
            skipped += r.skipped(); // files an attempt skipped are done: the next one does not name them again
            boolean seam = r.lost() && o.abortAfterBytes() >= 0;
            if (!r.lost() || seam || attempt >= retries) {
                if (!lostOnTheWay.isEmpty()) warn.accept("resumed after: " + String.join("; ", lostOnTheWay));
                return new CopyResult(r.bytes(), r.files(), r.filesVerified(), (System.nanoTime() - start) / 1e9, r.bytesSent(), r.resentBlocks(),
                        r.resentBytes(), r.repaired(), r.hashesVerified(), r.cpuSeconds(), r.failures(), r.lost(), r.lostReason(), r.transport(), skipped,
                        r.deleted());
            }
            lostOnTheWay.add(r.lostReason());
        }
    }

    private static CopyResult once(Connector connector, List<Path> sources, String destination, CopyOptions o, long id,
                                   Set<String> done, ManifestWriter manifest, TransferCounters counters, Consumer<String> warn) {
        Sender s = new Sender(connector.connect(), o, counters, warn);
        try {
            CopyResult r = s.run(sources, destination, id, done, manifest);
            done.addAll(s.verified());
            return r;
        } finally {
            s.close();
        }
    }

    /**
     * Pulls {@code sources} (paths under the server's root) into the local directory {@code destination} from the
     * RDMA server at {@code host:port}.
     */
    public static CopyResult pull(UrdmaDevice device, String host, int port, List<String> sources, Path destination, CopyOptions o,
                                  int retries, TransferCounters counters, Consumer<String> warn) throws IOException {
        return pull(rdma(device, host, port, o), sources, destination, o, retries, counters, warn);
    }

    /**
     * Pulls {@code sources} (paths under the server's root) into the local directory {@code destination}: the server
     * sends them as a push would, this side writes, verifies and journals them. A lost connection is made again and
     * the pull resumes from what is durable, up to {@code retries} times.
     *
     * @throws IllegalStateException when the server refuses (one line), or the peer does not agree on the WAN mode
     */
    public static CopyResult pull(Connector connector, List<String> sources, Path destination, CopyOptions o,
                                  int retries, TransferCounters counters, Consumer<String> warn) throws IOException {
        long start = System.nanoTime();
        double cpu0 = cpuSeconds();
        Files.createDirectories(destination);
        String host = connector.server().substring(0, connector.server().lastIndexOf(':'));
        long id = Sender.copyId(sources.stream().map(Path::of).toList(), host + ":" + destination.toAbsolutePath());
        int flags = o.flags();
        ServeOptions local = ServeOptions.under(destination).withMem(o.mem()).withIoThreads(o.ioThreads()).withWan(o.wan()).withIdleTimeout(o.timeout());
        List<String> lostOnTheWay = new ArrayList<>();
        for (int attempt = 0; ; attempt++) {
            ControlChannel ch = connector.connect();
            String transport = ch.transport();
            ReceiverSession.PullResult r;
            try (ch) {
                ch.send(new Message.Pull(id, sources, o.blockSize(), flags));
                r = ReceiverSession.receivePull(ch, local, line -> { });
            }
            counters.filesVerified.set(r.verified());
            counters.bytesVerified.set(r.bytesVerified());
            if (!r.lost() || attempt >= retries) {
                if (!lostOnTheWay.isEmpty()) warn.accept("resumed after: " + String.join("; ", lostOnTheWay));
                return new CopyResult(r.bytesVerified(), r.entries(), r.verified(), (System.nanoTime() - start) / 1e9, r.bytesWritten(), 0, 0, 0,
                        r.hashesVerified(), cpuSeconds() - cpu0, r.failures(), r.lost(), r.lost() ? "the connection ended part way" : null, transport,
                        r.skipped(), r.deleted());
            }
            lostOnTheWay.add("connection lost");
        }
    }

    static double cpuSeconds() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean s ? s.getProcessCpuTime() / 1e9 : 0;
    }

    /**
     * Copies {@code sources} into the local directory {@code destination} (made if missing) through a server in this
     * process, over the memory link with the given impairments (each direction).
     */
    public static CopyResult local(List<Path> sources, Path destination, CopyOptions o, ServeOptions so, ImpairmentConfig impairment,
                                   int retries, TransferCounters counters, Consumer<String> warn) throws IOException {
        return local(sources, destination, o, so, impairment, MemoryFabric.Telemetry.IN_MEMORY, retries, counters, warn);
    }

    /** As {@link #local(List, Path, CopyOptions, ServeOptions, ImpairmentConfig, int, TransferCounters, Consumer)}, both devices counting and journaling into {@code telemetry}. */
    public static CopyResult local(List<Path> sources, Path destination, CopyOptions o, ServeOptions so, ImpairmentConfig impairment,
                                   MemoryFabric.Telemetry telemetry, int retries, TransferCounters counters, Consumer<String> warn) throws IOException {
        Files.createDirectories(destination);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory(), impairment, impairment, telemetry);
             Server server = new Server(pair.first(), 0, so, warn)) {
            return push(pair.second(), "127.0.0.1", server.port(), sources, "", o, retries, counters, warn);
        }
    }

    /**
     * Copies {@code sources} into the local directory {@code destination} (made if missing) through a server in this
     * process, over loopback TCP.
     */
    public static CopyResult localTcp(List<Path> sources, Path destination, CopyOptions o, ServeOptions so, TcpOptions t,
                                      int retries, TransferCounters counters, Consumer<String> warn) throws IOException {
        Files.createDirectories(destination);
        try (Server server = new Server(List.of(new TcpListener(0, t.socketBuffer(), warn)), so, warn)) {
            return push(tcp("127.0.0.1", server.port(), t, o), sources, "", o, retries, counters, warn);
        }
    }
}
