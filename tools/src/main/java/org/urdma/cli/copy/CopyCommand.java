package org.urdma.cli.copy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.urdma.cli.EngineTelemetry;
import org.urdma.cli.Range;
import org.urdma.express.CopyOptions;
import org.urdma.express.CopyResult;
import org.urdma.express.Copier;
import org.urdma.express.ServeOptions;
import org.urdma.express.progress.ProgressLine;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.safety.TokenAuth;
import org.urdma.express.tcp.TcpOptions;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.impair.ImpairmentConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code urdma copy SRC... [HOST:]DST}: the data-express client. */
@Command(name = "copy", mixinStandardHelpOptions = true, description = {
    "Copies files and directory trees to an urdma serve (HOST:DST, DST under its --root), or from one (HOST:SRC... "
        + "DST pulls SRC from under the server's --root into the local DST), over RC in the WAN mode "
        + "(SACK, FEC, RRCC), verified block by block with SHA-256, durable and resumable: rerun the same command after "
        + "a crash or a cut link and it goes on where it stopped. Without HOST, both ends run in this process over the "
        + "memory link (no root needed) and DST is a local directory. --transport tcp does the same over kernel TCP "
        + "(--cc, --streams), to a serve --transport tcp, or without HOST over loopback.",
    "Exit status: 0 every file verified at the destination; 1 some entry failed (named on stderr); 2 a bad option; "
        + "3 partial, rerun to resume.",
    "Data is NOT encrypted on the wire: anyone who can read the link reads the files. --token-file only proves the "
        + "client to the server; use it on a network you trust, or over a VPN/IPsec."})
public final class CopyCommand implements Callable<Integer> {
    @Parameters(arity = "2..*", paramLabel = "SRC... DST", description = "Sources, then the destination: local sources and HOST:DIR "
            + "(under the server's --root) or a local DIR; or HOST:PATH sources (under the server's --root, one host) and a local DIR")
    List<String> args;

    @Range(min = 1, max = 65535)
    @Option(names = "--port", description = "The server's port: for rdma its connection setup port (default: " + ServeCommand.PORT
            + "), for tcp its --tcp-port (default: " + ServeCommand.TCP_PORT + ")")
    Integer port;

    @Option(names = "--link", converter = org.urdma.cli.LinkSpec.class, description = "Link: afpacket:IF or tap:IF for HOST:DST; "
            + "memory for a local copy (default: ${DEFAULT-VALUE})")
    String link = "memory";

    @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "This port's own IPv4 address (RoCEv2)")
    String ip;

    @Option(names = "--framing", description = "Wire format: roce2, roce1, a PAXI format (default: ${DEFAULT-VALUE})")
    String framing = "roce2";

    @Option(names = "--mem", paramLabel = "SIZE", description = "Staging memory this side uses, e.g. 256M (default: ${DEFAULT-VALUE})")
    String mem = "256M";

    @Option(names = "--block-size", paramLabel = "SIZE", description = "Block hashed, journaled and re-requested: a power of two, 64K..64M (default: ${DEFAULT-VALUE})")
    String blockSize = "4M";

    @Range(min = 1, max = 64)
    @Option(names = "--io-threads", description = "Threads reading and hashing files (default: ${DEFAULT-VALUE})")
    int ioThreads = 2;

    @Option(names = "--verify", paramLabel = "reread", description = "reread: the server reads each file back after fsync and checks its block hashes")
    String verify;

    @Option(names = "--manifest", paramLabel = "FILE", description = "Write sha256sum -c lines of every file copied (paths relative to DST)")
    Path manifest;

    @Option(names = "--exclude", paramLabel = "GLOB", description = "Leave out names or relative paths matching GLOB (repeatable)")
    List<String> excludes = new ArrayList<>();

    @Option(names = "--skip-existing", paramLabel = "size|checksum", description = "size: skip a file whose target exists with the same size; "
            + "checksum: with the same size and SHA-256 (the receiver hashes its file; a same-size target that differs gets only its differing blocks)")
    String skipExisting;

    @Option(names = "--delete", description = "Once every file is verified, delete what each source directory's copy at the destination holds "
            + "and the source does not (links are deleted, never followed; excluded names are left alone); nothing is deleted when an entry failed")
    boolean delete;

    @Option(names = "--delete-excluded", description = "--delete, and delete names --exclude matches as well")
    boolean deleteExcluded;

    @Option(names = "--allow-gbn", description = "Copy with go-back-N when the server does not agree on the WAN mode (refused otherwise)")
    boolean allowGbn;

    @Option(names = "--rate", paramLabel = "RATE", description = "RRCC's reference rate: the path's bottleneck as far as you know it, "
            + "bit/s with an optional K, M or G suffix, e.g. 1G (the lower of both sides' applies; default: none, RRCC finds it)")
    String rate;

    @Option(names = "--max-rate", paramLabel = "RATE", description = "RRCC's cap: the connection never paces faster, bit/s with an optional "
            + "K, M or G suffix, at least --rate (the lower of both sides' applies, so a pull's server keeps under it too; default: none)")
    String maxRate;

    @Mixin
    org.urdma.cli.TelemetryOptions telemetryOptions = new org.urdma.cli.TelemetryOptions();

    @Option(names = "--no-wan", description = "Do not offer the WAN mode (a data-centre link)")
    boolean noWan;

    @Option(names = "--token-file", paramLabel = "FILE", description = "Shared token: the connection carries its HMAC (the token does not travel)")
    Path tokenFile;

    @Range(min = 1, max = 3600)
    @Option(names = "--timeout", description = "Seconds to connect, and the server may stay silent (default: ${DEFAULT-VALUE})")
    int timeout = 30;

    @Range(min = 0, max = 100)
    @Option(names = "--retries", description = "Connections made again after one is lost, resuming each time (default: ${DEFAULT-VALUE})")
    int retries = 3;

    @Range(min = 0, max = 0.5)
    @Option(names = "--loss", description = "Local copy only: frame loss on the memory link, both ways (default: ${DEFAULT-VALUE})")
    double loss;

    @Range(min = 0, max = 0.5)
    @Option(names = "--reorder", description = "Local copy only: frames reordered on the memory link (default: ${DEFAULT-VALUE})")
    double reorder;

    @Option(names = "--failed", paramLabel = "FILE", description = "Write one line per entry that did not finish (path: reason)")
    Path failed;

    @Option(names = "--json", description = "Print the final summary as JSON (bytes, files, seconds, goodput, resent, repaired, CPU seconds, hashes)")
    boolean json;

    @Option(names = "--quiet", description = "No progress line")
    boolean quiet;

    // the transport: RDMA in the WAN mode, or kernel TCP under the same file, hash, journal and commit code
    @Option(names = "--transport", paramLabel = "rdma|tcp", description = "rdma: RC in the WAN mode (default); tcp: kernel TCP to a serve "
            + "--transport tcp (or both), the same files, hashes, journal and commits, to measure the transport alone")
    String transport = "rdma";

    @Option(names = "--cc", paramLabel = "NAME", description = "tcp: congestion control of every socket (TCP_CONGESTION), both ways: bbr, cubic, "
            + "reno or another the kernel offers (default: the kernel's)")
    String cc;

    @Range(min = 1, max = TcpOptions.MAX_STREAMS)
    @Option(names = "--streams", description = "tcp: TCP connections the blocks are striped over (default: ${DEFAULT-VALUE})")
    int streams = 1;

    @Option(names = "--socket-buffer", paramLabel = "SIZE", description = "tcp: SO_SNDBUF and SO_RCVBUF of every socket, e.g. 32M "
            + "(default: the kernel's autotuning, which setting a size turns off)")
    String socketBuffer;

    /** {@return the TCP transport's options, or null for RDMA; an option of the other transport is refused by name} */
    private TcpOptions tcpOptions() {
        if (transport.equals("rdma")) {
            if (cc != null) throw new IllegalArgumentException("--cc: sets kernel TCP's congestion control; it needs --transport tcp");
            if (streams != 1) throw new IllegalArgumentException("--streams: stripes blocks over TCP connections; it needs --transport tcp");
            if (socketBuffer != null) throw new IllegalArgumentException("--socket-buffer: sizes TCP sockets; it needs --transport tcp");
            return null;
        }
        if (!transport.equals("tcp")) throw new IllegalArgumentException("--transport: rdma or tcp, was '" + transport + "'");
        if (!link.equals("memory") || ip != null) throw new IllegalArgumentException("--link/--ip: RDMA's; kernel TCP takes the host's addresses and routes");
        String wanOnly = rate != null ? "--rate" : maxRate != null ? "--max-rate" : noWan ? "--no-wan" : allowGbn ? "--allow-gbn" : null;
        if (wanOnly != null) throw new IllegalArgumentException(wanOnly + ": the WAN mode's; not for --transport tcp");
        if (telemetryOptions.asked()) throw new IllegalArgumentException("--counters/--journal: the RDMA engine's; not for --transport tcp");
        if (loss > 0 || reorder > 0) throw new IllegalArgumentException("--loss/--reorder: the memory link's impairments; not for --transport tcp");
        long sb = socketBuffer == null ? 0 : Sizes.parse("--socket-buffer", socketBuffer);
        if (sb > 1L << 30) throw new IllegalArgumentException("--socket-buffer: at most 1G, was " + socketBuffer);
        return new TcpOptions(cc, streams, (int) sb);
    }

    private int port(TcpOptions tcp) {
        return port != null ? port : tcp != null ? ServeCommand.TCP_PORT : ServeCommand.PORT;
    }

    /** {@return a --rate value in bit/s} */
    static long rate(String value) {
        return rate("--rate", value);
    }

    /** {@return a rate option's value in bit/s} */
    static long rate(String option, String value) {
        if (notOneRate(value)) throw new IllegalArgumentException(option + ": a rate such as 800M or 1G (bit/s), was '" + value + "'");
        try {
            return org.urdma.transport.cm.WanOffer.parse(true, null, null, "rrcc,ref=" + value.trim()).referenceBps();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": a rate such as 800M or 1G (bit/s), was '" + value + "'");
        }
    }

    private static boolean notOneRate(String value) {
        return value.isBlank() || value.contains(",");
    }

    /** {@return the index of the colon ending a HOST: prefix, or -1 (a colon after a slash is part of a local path)} */
    static int hostColon(String arg) {
        int colon = arg.indexOf(':');
        return colon > 0 && !arg.substring(0, colon).contains("/") ? colon : -1;
    }

    @Override
    public Integer call() throws Exception {
        TcpOptions tcp = tcpOptions();
        if (hostColon(args.get(0)) > 0) return pull(tcp);
        List<Path> sources = new ArrayList<>();
        for (String s : args.subList(0, args.size() - 1)) {
            if (hostColon(s) > 0) throw new IllegalArgumentException("SRC: '" + s + "' is remote but '" + args.get(0) + "' is local; pull or push, not both");
            Path p = Path.of(s);
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) throw new IllegalArgumentException("SRC: no such file or directory: " + s);
            sources.add(p);
        }
        String dst = args.get(args.size() - 1);
        int colon = hostColon(dst);
        boolean remote = colon > 0;
        CopyOptions o = options();
        TransferCounters counters = new TransferCounters();
        java.util.function.Consumer<String> warn = w -> System.err.println("urdma copy: warning: " + w);
        CopyResult r;
        try (EngineTelemetry telemetry = telemetryOptions.open("urdma0")) {
            try {
                r = run(sources, dst, remote, colon, o, tcp, counters, warn, telemetry);
            } catch (IllegalStateException e) {
                System.err.println("urdma copy: " + e.getMessage()); // refused by the server or a peer without the WAN mode
                return CopyResult.EXIT_FAILED;
            } finally {
                describe(telemetry);
            }
        }
        return report(r);
    }

    /** HOST:SRC... DST: the server sends, this side receives into DST. */
    private int pull(TcpOptions tcp) throws Exception {
        String first = args.get(0);
        String host = first.substring(0, hostColon(first));
        List<String> sources = new ArrayList<>();
        for (String s : args.subList(0, args.size() - 1)) {
            int c = hostColon(s);
            if (c < 0 || !s.substring(0, c).equals(host)) throw new IllegalArgumentException("SRC: '" + s + "': a pull takes every SRC from " + host + ":");
            sources.add(s.substring(c + 1));
        }
        String dst = args.get(args.size() - 1);
        if (hostColon(dst) > 0) throw new IllegalArgumentException("DST: '" + dst + "': a pull writes into a local directory");
        if (tcp == null && link.equals("memory")) {
            throw new IllegalArgumentException("--link: HOST:SRC needs afpacket:IF or tap:IF (memory works only in one process)");
        }
        if (loss > 0 || reorder > 0) throw new IllegalArgumentException("--loss/--reorder: only for a local copy over the memory link");
        if (manifest != null) throw new IllegalArgumentException("--manifest: not for a pull (check the pulled files with sha256sum at the source)");
        if (!excludes.isEmpty()) throw new IllegalArgumentException("--exclude: not for a pull (the server walks its tree whole)");
        CopyOptions o = options();
        TransferCounters counters = new TransferCounters();
        java.util.function.Consumer<String> warn = w -> System.err.println("urdma copy: warning: " + w);
        CopyResult r;
        try (EngineTelemetry telemetry = telemetryOptions.open("urdma0")) {
            try (ProgressLine line = ProgressLine.startIf(!json && !quiet && System.console() != null, counters, System.err)) {
                if (tcp != null) {
                    r = Copier.pull(Copier.tcp(host, port(tcp), tcp, o), sources, Path.of(dst), o, retries, counters, warn);
                } else {
                    try (UrdmaDevice d = Urdma.open(DeviceOptions.memory().withLink(link).withIp(ip).withFraming(framing), telemetry)) {
                        r = Copier.pull(d, host, port(null), sources, Path.of(dst), o, retries, counters, warn);
                    }
                }
            } catch (IllegalStateException e) {
                System.err.println("urdma copy: " + e.getMessage());
                return CopyResult.EXIT_FAILED;
            } finally {
                describe(telemetry);
            }
        }
        return report(r);
    }

    /** Where the counters and the journal are, on stderr (stdout is --json's). */
    private static void describe(EngineTelemetry telemetry) {
        for (String line : telemetry.describe()) System.err.println("urdma copy: " + line.trim());
    }

    private int report(CopyResult r) throws java.io.IOException {
        for (String f : r.failures()) System.err.println("urdma copy: failed: " + f);
        if (failed != null) Files.write(failed, r.failures());
        if (json) System.out.println(r.toJson());
        else System.err.println("urdma copy: " + r.line());
        return r.exitCode();
    }

    private CopyResult run(List<Path> sources, String dst, boolean remote, int colon, CopyOptions o, TcpOptions tcp, TransferCounters counters,
                           java.util.function.Consumer<String> warn, EngineTelemetry telemetry) throws java.io.IOException {
        CopyResult r;
        try (ProgressLine line = ProgressLine.startIf(!json && !quiet && System.console() != null, counters, System.err)) {
            if (tcp != null) {
                ServeOptions so = ServeOptions.under(Path.of(dst)).withMem(o.mem()).withIoThreads(ioThreads).withToken(o.token());
                r = remote ? Copier.push(Copier.tcp(dst.substring(0, colon), port(tcp), tcp, o), sources, dst.substring(colon + 1), o, retries, counters, warn)
                        : Copier.localTcp(sources, Path.of(dst), o, so, tcp, retries, counters, warn);
            } else if (remote) {
                if (link.equals("memory")) throw new IllegalArgumentException("--link: HOST:DST needs afpacket:IF or tap:IF (memory works only in one process)");
                if (loss > 0 || reorder > 0) throw new IllegalArgumentException("--loss/--reorder: only for a local copy over the memory link");
                try (UrdmaDevice d = Urdma.open(DeviceOptions.memory().withLink(link).withIp(ip).withFraming(framing), telemetry)) {
                    r = Copier.push(d, dst.substring(0, colon), port(null), sources, dst.substring(colon + 1), o, retries, counters, warn);
                }
            } else {
                if (!link.equals("memory")) throw new IllegalArgumentException("--link: a local DST runs over the memory link; give HOST:DST for " + link);
                ImpairmentConfig imp = loss > 0 || reorder > 0 ? ImpairmentConfig.random(loss, 0, reorder, System.nanoTime()) : ImpairmentConfig.none();
                Path root = Path.of(dst);
                ServeOptions so = ServeOptions.under(root).withMem(o.mem()).withIoThreads(ioThreads).withWan(!noWan).withToken(o.token());
                r = Copier.local(sources, root, o, so, imp, telemetry, retries, counters, warn);
            }
        }
        return r;
    }

    private CopyOptions options() throws java.io.IOException {
        if (verify != null && !verify.equals("reread")) throw new IllegalArgumentException("--verify: reread, was '" + verify + "'");
        if (skipExisting != null && !skipExisting.equals("size") && !skipExisting.equals("checksum")) {
            throw new IllegalArgumentException("--skip-existing: size or checksum, was '" + skipExisting + "'");
        }
        long rateBps = rate == null ? 0 : rate(rate);
        long maxBps = maxRate == null ? 0 : rate("--max-rate", maxRate);
        if (maxRate != null && maxBps < rateBps) throw new IllegalArgumentException("--max-rate: at least --rate (" + rate + "), was '" + maxRate + "'");
        long bs = Sizes.parse("--block-size", blockSize);
        if (bs > CopyOptions.MAX_BLOCK) throw new IllegalArgumentException("--block-size: at most 64M, was " + blockSize);
        return CopyOptions.defaults().withBlockSize((int) bs).withMem(Sizes.parse("--mem", mem)).withIoThreads(ioThreads)
                .withVerifyReread(verify != null).withManifest(manifest).withExcludes(excludes).withSkipExistingSize("size".equals(skipExisting))
                .withWan(!noWan).withAllowGbn(allowGbn).withToken(tokenFile == null ? null : TokenAuth.read(tokenFile))
                .withTimeout(Duration.ofSeconds(timeout)).withRate(rateBps).withMaxRate(maxBps)
                .withSync(new CopyOptions.TreeSync("checksum".equals(skipExisting), delete || deleteExcluded, deleteExcluded));
    }
}
