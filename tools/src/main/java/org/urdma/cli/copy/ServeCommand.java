package org.urdma.cli.copy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.express.ServeOptions;
import org.urdma.express.receiver.Server;
import org.urdma.express.safety.TokenAuth;
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
        + "verified, then renamed into place. Runs until stopped (Ctrl-C); each client has a session of its own.",
    "Data is NOT encrypted on the wire. --token-file makes the server refuse clients that do not prove the shared "
        + "token (an HMAC in the connection's private data); it does not hide the data."})
public final class ServeCommand implements Callable<Integer> {
    static final int PORT = 18520;

    @Option(names = "--root", required = true, paramLabel = "DIR", description = "The only directory written under")
    Path root;

    @Range(min = 1, max = 65535)
    @Option(names = "--port", description = "TCP port for connection setup (default: ${DEFAULT-VALUE})")
    int port = PORT;

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, required = true, description = "Link: afpacket:IF or tap:IF")
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

    @Override
    public Integer call() throws Exception {
        if (link.equals("memory")) throw new IllegalArgumentException("--link: serve needs afpacket:IF or tap:IF (a local copy needs no server)");
        if (!Files.isDirectory(root)) throw new IllegalArgumentException("--root: not a directory: " + root);
        ServeOptions o = ServeOptions.under(root).withMem(Sizes.parse("--mem", mem)).withIoThreads(ioThreads)
                .withToken(tokenFile == null ? null : TokenAuth.read(tokenFile)).withWan(!noWan).withIdleTimeout(Duration.ofSeconds(idleTimeout));
        try (org.urdma.cli.EngineTelemetry telemetry = telemetryOptions.open("urdma0");
             UrdmaDevice d = Urdma.open(DeviceOptions.memory().withLink(link).withIp(ip).withFraming(framing), telemetry);
             Server s = new Server(d, port, o, line -> System.err.println("urdma serve: " + line))) {
            System.err.println("urdma serve: serving " + root.toRealPath() + " on port " + s.port() + ", " + d.describe()
                    + " (data is not encrypted on the wire)");
            for (String line : telemetry.describe()) System.err.println("urdma serve: " + line.trim());
            Thread.currentThread().join();
        }
        return 0;
    }
}
