package org.urdma.express.receiver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.urdma.express.CopyOptions;
import org.urdma.express.ServeOptions;
import org.urdma.express.protocol.MalformedMessageException;
import org.urdma.express.protocol.Message;
import org.urdma.express.safety.SafePaths;
import org.urdma.express.safety.TokenAuth;
import org.urdma.express.session.ConnectionLostException;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.staging.StagingRing;
import org.urdma.express.tree.FileModes;
import org.urdma.verbs.AccessFlags;

/**
 * One client's session on the server: checks its token, opens the destination it names (under the root), grants
 * it staging windows, and hands entries to a planner thread and chunks to writer threads, sending back what they
 * produce. Every error ends this session with a one-line reason to the client (and in the server's log); the
 * server's other sessions go on.
 */
public final class ReceiverSession implements ControlChannel.Handler {
    private final ServeOptions options;
    private final SafePaths safe;
    private final java.util.function.Consumer<String> log;
    private final Thread control = Thread.currentThread();
    private final ControlChannel channel;
    private SessionState state;
    private ExecutorService planner;
    private ExecutorService writers;
    private volatile String fatal;
    private boolean ended;
    /** A client asked for files (the session then sends them), or null. */
    private Message.Pull pull;
    /** This end pulls: the server's ERROR ends it with that reason. */
    private boolean pulling;
    private volatile String peerError;

    private final java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean serverKilled;
    private final SessionRegistry registry;
    private long copyId;

    ReceiverSession(ControlChannel channel, ServeOptions options, SafePaths safe, java.util.function.Consumer<String> log,
                    java.util.concurrent.atomic.AtomicBoolean serverKilled, SessionRegistry registry) {
        this.serverKilled = serverKilled;
        this.registry = registry;
        this.channel = channel;
        this.options = options;
        this.safe = safe;
        this.log = log;
    }

    /**
     * The receiving end of a pull, in the client: the server's sender talks to it on {@code channel} (which sent the
     * PULL) and it writes under {@code options.root()}.
     */
    public static PullResult receivePull(ControlChannel channel, ServeOptions options, java.util.function.Consumer<String> log)
            throws java.io.IOException {
        ReceiverSession s = new ReceiverSession(channel, options, new SafePaths(options.root()), log,
                new java.util.concurrent.atomic.AtomicBoolean(), new SessionRegistry());
        s.pulling = true;
        s.serve();
        if (s.peerError != null) throw new IllegalStateException(s.peerError);
        SessionState st = s.state;
        return st == null ? new PullResult(0, 0, 0, 0, 0, 0, 0, List.of(), !s.ended)
                : new PullResult(st.entriesSeen.get(), st.entriesVerified.get(), st.bytesVerified.get(), st.bytesWritten.get(),
                        st.hashesVerified.get(), st.skipped.get(), st.deleted.get(), List.copyOf(st.failures), !s.ended);
    }

    /** What a pull left in the client: entries and bytes, and whether it stopped part way ({@code lost}). */
    public record PullResult(long entries, long verified, long bytesVerified, long bytesWritten, long hashesVerified, long skipped, long deleted,
                             List<String> failures, boolean lost) {
    }

    /** Runs the session to its end on this thread. */
    public void run() {
        serve();
    }

    private void serve() {
        String who = channel.toString();
        try {
            if (!pulling) {
                try {
                    TokenAuth.check(options.token(), channel.peerPrivateData());
                } catch (IllegalArgumentException e) {
                    refuse(e.getMessage());
                    return;
                }
            }
            loop();
            if (pull != null) sendPulled(pull, who);
        } catch (MalformedMessageException | org.urdma.express.safety.PathRefusedException e) {
            refuse(e.getMessage());
        } catch (ConnectionLostException e) {
            log.accept("session " + who + ": " + e.getMessage() + " (durable blocks kept)");
        } catch (RuntimeException e) {
            refuse(e.getMessage() == null ? e.toString() : e.getMessage());
        } finally {
            shutdown();
            try {
                channel.close();
            } catch (RuntimeException ignored) {
                // the peer is gone already
            }
        }
    }

    /** Answers a pull: the named sources, each checked to lie under the root, go to the client as a copy would push them. */
    private void sendPulled(Message.Pull p, String who) {
        checkBlockSize("PULL", p.blockSize());
        List<Path> sources = new ArrayList<>();
        for (String s : p.sources()) sources.add(safe.source(s));
        CopyOptions o = CopyOptions.defaults().withBlockSize(p.blockSize()).withMem(Math.max(options.mem(), 2L * p.blockSize()))
                .withIoThreads(options.ioThreads()).withSkipExistingSize((p.flags() & Message.SKIP_EXISTING_SIZE) != 0)
                .withSkipExistingChecksum((p.flags() & Message.SKIP_EXISTING_CHECKSUM) != 0).withDelete((p.flags() & Message.DELETE) != 0)
                .withVerifyReread((p.flags() & Message.VERIFY_REREAD) != 0).withWan(options.wan()).withTimeout(options.idleTimeout());
        org.urdma.express.CopyResult r = new org.urdma.express.sender.Sender(channel, o, new org.urdma.express.progress.TransferCounters(), log)
                .run(sources, "", p.copyId(), java.util.Set.of(), new org.urdma.express.hash.ManifestWriter());
        log.accept("pull by " + who + ": " + r.line());
    }

    private static void checkBlockSize(String what, int bs) {
        if (bs < CopyOptions.MIN_BLOCK || bs > CopyOptions.MAX_BLOCK || Integer.bitCount(bs) != 1) {
            throw new MalformedMessageException(what + ".blockSize " + bs + " is not a power of two from 64 KiB to 64 MiB");
        }
    }

    /** Sends a one-line ERROR and ends the session. */
    private void refuse(String reason) {
        log.accept("refused " + channel + ": " + reason);
        try {
            channel.send(new Message.Error(reason));
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (channel.busy() && System.nanoTime() - deadline < 0) {
                if (channel.pump(IGNORE) == 0) LockSupport.parkNanos(100_000);
            }
        } catch (RuntimeException ignored) {
            // the client went away first; the log has the reason
        }
    }

    private static final ControlChannel.Handler IGNORE = new ControlChannel.Handler() {
        @Override
        public void onMessage(Message m) {
        }

        @Override
        public void onWriteDone(long token) {
        }
    };

    private void loop() {
        long idle = options.idleTimeout().toNanos();
        while ((!ended || channel.busy()) && pull == null && peerError == null) {
            if (killed.get() || serverKilled.get()) throw new ConnectionLostException(killed.get() ? "a rerun of this copy took over" : "server killed");
            if (state == null && pull == null && !pulling && registry.isClosing()) throw new ConnectionLostException("the server is closing");
            if (fatal != null) throw new MalformedMessageException(fatal.replaceFirst("^malformed control message: ", ""));
            int work = channel.pump(this);
            if (state != null) {
                for (Message m; (m = state.outbox.poll()) != null; work++) channel.send(m);
            }
            if (work == 0) {
                long now = System.nanoTime();
                if (!ended && channel.nanosSinceLastReceive(now) > idle) {
                    throw new ConnectionLostException((pulling ? "server" : "client") + " silent for " + options.idleTimeout().toSeconds() + " s");
                }
                // its QP went with it: nothing more will come, so the session need not wait out the idle timeout
                if (!ended && channel.peerGone(now)) throw new ConnectionLostException((pulling ? "server" : "client") + " closed the connection");
                // a pulling client's files are all in place: the server closing before it acknowledged the summary costs nothing
                if (ended && pulling && channel.nanosSinceLastReceive(now) > 2_000_000_000L) return;
                LockSupport.parkNanos(50_000);
            }
        }
    }

    @Override
    public void onWriteDone(long token) {
    }

    @Override
    public void onMessage(Message m) {
        switch (m) {
            case Message.Hello h -> hello(h);
            case Message.Files f -> {
                SessionState s = state("FILES");
                EntryPlanner p = new EntryPlanner(s);
                planner.execute(() -> guarded(() -> p.plan(f)));
            }
            case Message.Chunk c -> {
                SessionState s = state("CHUNK");
                if (c.slot() >= s.ring.slots()) throw new MalformedMessageException("CHUNK.slot " + c.slot() + " was never granted");
                ChunkWriter w = new ChunkWriter(s);
                writers.execute(() -> guarded(() -> {
                    try {
                        w.write(c);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }));
            }
            case Message.End e -> end();
            case Message.Protect p -> state("PROTECT").protect = new org.urdma.express.tree.Excludes(p.globs());
            case Message.Pull p -> {
                if (pulling || state != null || pull != null) throw new MalformedMessageException("PULL in a session that already began");
                pull = p;
            }
            case Message.Error e when pulling -> peerError = "server: " + e.reason();
            default -> throw new MalformedMessageException(m.getClass().getSimpleName().toUpperCase(java.util.Locale.ROOT)
                    + " is a server's message, not a client's");
        }
    }

    private void guarded(Runnable r) {
        try {
            r.run();
        } catch (MalformedMessageException e) {
            fatal = e.getMessage();
            LockSupport.unpark(control);
        } catch (RuntimeException e) {
            fatal = "I/O: " + e.getMessage();
            LockSupport.unpark(control);
        }
    }

    private SessionState state(String what) {
        if (state == null) throw new MalformedMessageException(what + " before HELLO");
        return state;
    }

    private void hello(Message.Hello h) {
        if (state != null) throw new MalformedMessageException("a second HELLO");
        int bs = h.blockSize();
        checkBlockSize("HELLO", bs);
        Path dest = safe.destination(h.destination());
        copyId = h.copyId();
        registry.takeOver(copyId, killed);
        try {
            Files.createDirectories(dest);
        } catch (IOException e) {
            throw new IllegalStateException("destination '" + SafePaths.printable(h.destination()) + "': " + e.getMessage());
        }
        StagingRing ring = new StagingRing(channel.memory(), StagingRing.slotsFor(options.mem(), bs), bs, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        state = new SessionState(safe, dest, bs, h.flags(), options.hooks(), ring, () -> LockSupport.unpark(control));
        planner = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name("urdma-plan").unstarted(r));
        writers = Executors.newFixedThreadPool(options.ioThreads(), r -> Thread.ofPlatform().daemon().name("urdma-write").unstarted(r));
        channel.send(new Message.Ready(ring.slots(), bs));
        for (int i = 0; i < ring.slots(); i++) channel.send(new Message.Grant(i, ring.address(i), ring.region().rkey(), bs));
    }

    /** Every entry is done: the directories get their modes and mtimes, deepest first, and the client its summary. */
    private void end() {
        SessionState s = state("END");
        drain();
        if ((s.flags & Message.DELETE) != 0) deleteExtraneous(s);
        List<Message.Entry> dirs = new ArrayList<>(s.directories);
        dirs.sort(Comparator.comparingInt((Message.Entry e) -> e.path().split("/").length).reversed());
        for (Message.Entry d : dirs) {
            try {
                FileModes.apply(s.safe.resolve(s.destination, d.path()), d.mode(), d.mtimeNs(), false);
            } catch (IOException | RuntimeException e) {
                log.accept("directory " + SafePaths.printable(d.path()) + ": " + e.getMessage());
            }
        }
        try {
            Files.deleteIfExists(s.parts.directory()); // only when empty: parts of unfinished files stay for a rerun
        } catch (IOException ignored) {
            // not empty
        }
        for (Message m; (m = s.outbox.poll()) != null; ) channel.send(m);
        channel.send(new Message.Summary(s.bytesWritten.get(), (int) s.repaired.get(), (int) s.hashesVerified.get(), (int) s.skipped.get(),
                (int) s.deleted.get()));
        ended = true;
    }

    /** DELETE, once every entry is done: nothing is deleted when one failed, as rsync skips deletion after an I/O error. */
    private void deleteExtraneous(SessionState s) {
        if (!s.failures.isEmpty()) {
            log.accept("--delete: nothing deleted, " + s.failures.size() + " entries failed");
            return;
        }
        s.deleted.addAndGet(new ExtraneousEntries(s.safe, s.destination, s.protect, log).delete(s.directories, s.seen));
    }

    /** Lets queued planning and writing finish. */
    private void drain() {
        for (ExecutorService e : new ExecutorService[] {planner, writers}) {
            if (e == null) continue;
            e.shutdown();
            try {
                e.awaitTermination(1, TimeUnit.MINUTES);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void shutdown() {
        if (state != null) registry.ended(copyId, killed);
        if (killed.get() || serverKilled.get()) {
            for (ExecutorService e : new ExecutorService[] {planner, writers}) if (e != null) e.shutdownNow();
        }
        drain();
        if (state != null) {
            for (IncomingFile f : state.files.values()) {
                try {
                    if (f.journal != null) f.journal.close();
                } catch (IOException ignored) {
                    // the journal's records are on disk already
                }
            }
        }
    }
}
