package org.urdma.cli.copy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.express.ServeOptions;
import org.urdma.express.receiver.Server;
import org.urdma.express.safety.TokenAuth;
import org.urdma.express.session.ChannelListener;
import org.urdma.express.session.RdmaListener;
import org.urdma.express.tcp.TcpListener;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code urdma serve --root DIR}: receives copies under DIR until stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true, description = {
    "Receives urdma copy pushes under --root and nowhere else, and sends pulls (urdma copy HOST:SRC DST) of what "
        + "lies under --root only: absolute paths, '..' and symlinks leading outside the root are refused by name. Files are written under DEST/.urdma-part with a journal of durable blocks, "
        + "verified, then renamed into place. Runs until stopped (Ctrl-C); each client has a session of its own. "
        + "--transport tcp serves copies over kernel TCP on --tcp-port instead (no --link, no root needed); both serves RDMA and TCP at once.",
    "Data is NOT encrypted on the wire. --token-file makes the server refuse clients that do not prove the shared "
        + "token (an HMAC in the connection's private data); it does not hide the data."})
public final class ServeCommand implements Callable<Integer> {
    static final int PORT = 18520;
    static final int TCP_PORT = 18521;

    @Option(names = "--root", required = true, paramLabel = "DIR", description = "The only directory written under")
    Path root;

    @Range(min = 1, max = 65535)
    @Option(names = "--port", description = "rdma: the TCP port for connection setup (default: " + PORT + "; TCP copies use --tcp-port)")
    Integer port;

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, description = "Link: afpacket:IF or tap:IF (rdma and both)")
    String link;

    @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (RoCEv2)")
    String ip;

    @Option(names = "--framing", description = "Wire format (default: ${DEFAULT-VALUE})")
    String framing = "roce2";

    @Option(names = "--mem", paramLabel = "SIZE", description = "Staging memory per session (default: ${DEFAULT-VALUE})")
    String mem = "256M";

    @Range(min = 1, max = 64)
    @Option(names = "--io-threads", description = "Threads per session hashing and writing (default: ${DEFAULT-VALUE})")
    int ioThreads = 2;

    @Option(names = "--token-file", paramLabel = "FILE", description = "Refuse clients that do not prove this shared token")
    Path tokenFile;

    @Option(names = "--no-wan", description = "Do not offer the WAN mode (clients then need --allow-gbn)")
    boolean noWan;

    @Mixin
    org.urdma.cli.TelemetryOptions telemetryOptions = new org.urdma.cli.TelemetryOptions();

    @Range(min = 1, max = 86400)
    @Option(names = "--idle-timeout", description = "Seconds a client may be silent before its session ends (default: ${DEFAULT-VALUE})")
    int idleTimeout = 60;

    // the transports served: RDMA on --link, kernel TCP on --tcp-port, or both at once
    @Option(names = "--transport", paramLabel = "rdma|tcp|both", description = "rdma: RDMA on --link (default); tcp: kernel TCP copies "
            + "(urdma copy --transport tcp) on --tcp-port; both: each on its port")
    String transport = "rdma";

    @Range(min = 1, max = 65535)
    @Option(names = "--tcp-port", description = "tcp: the port TCP copies connect to (default: ${DEFAULT-VALUE})")
    int tcpPort = TCP_PORT;

    @Option(names = "--socket-buffer", paramLabel = "SIZE", description = "tcp: SO_SNDBUF and SO_RCVBUF of every socket, e.g. 32M "
            + "(default: the kernel's autotuning, which setting a size turns off)")
    String socketBuffer;

    @Override
    public Integer call() throws Exception {
        boolean rdma = !transport.equals("tcp");
        if (!List.of("rdma", "tcp", "both").contains(transport)) throw new IllegalArgumentException("--transport: rdma, tcp or both, was '" + transport + "'");
        if (rdma && link == null) throw new IllegalArgumentException("--link: serve needs afpacket:IF or tap:IF (or --transport tcp)");
        if (!rdma && port != null) throw new IllegalArgumentException("--port: RDMA's connection setup port; --transport tcp listens on --tcp-port");
        if (!rdma && link != null) throw new IllegalArgumentException("--link: RDMA's; --transport tcp takes the host's addresses (--transport both serves RDMA on --link too)");
        if (rdma && link.equals("memory")) throw new IllegalArgumentException("--link: serve needs afpacket:IF or tap:IF (a local copy needs no server)");
        if (!Files.isDirectory(root)) throw new IllegalArgumentException("--root: not a directory: " + root);
        long sb = socketBuffer == null ? 0 : Sizes.parse("--socket-buffer", socketBuffer);
        if (sb > 1L << 30) throw new IllegalArgumentException("--socket-buffer: at most 1G, was " + socketBuffer);
        ServeOptions o = ServeOptions.under(root).withMem(Sizes.parse("--mem", mem)).withIoThreads(ioThreads)
                .withToken(tokenFile == null ? null : TokenAuth.read(tokenFile)).withWan(!noWan).withIdleTimeout(Duration.ofSeconds(idleTimeout));
        java.util.function.Consumer<String> log = line -> System.err.println("urdma serve: " + line);
        List<ChannelListener> listeners = new ArrayList<>();
        if (!rdma && telemetryOptions.asked()) throw new IllegalArgumentException("--counters/--journal: the RDMA engine's; not for --transport tcp");
        try (org.urdma.cli.EngineTelemetry telemetry = telemetryOptions.open("urdma0");
             UrdmaDevice d = rdma ? Urdma.open(DeviceOptions.memory().withLink(link).withIp(ip).withFraming(framing), telemetry) : null) {
            if (rdma) listeners.add(new RdmaListener(d, port == null ? PORT : port, !noWan));
            if (!transport.equals("rdma")) listeners.add(new TcpListener(tcpPort, (int) sb, log));
            try (Server s = new Server(listeners, o, log)) {
                System.err.println("urdma serve: serving " + root.toRealPath() + ", " + s.describe() + (d != null ? ", " + d.describe() : "")
                        + " (data is not encrypted on the wire)");
                if (rdma) for (String line : telemetry.describe()) System.err.println("urdma serve: " + line.trim());
                Thread.currentThread().join();
            }
        }
        return 0;
    }
}
