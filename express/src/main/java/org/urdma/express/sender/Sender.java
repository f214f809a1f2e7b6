package org.urdma.express.sender;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;
import org.urdma.express.CopyOptions;
import org.urdma.express.CopyResult;
import org.urdma.express.hash.ManifestWriter;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.protocol.ControlLimits;
import org.urdma.express.protocol.Message;
import org.urdma.express.protocol.MessageCodec;
import org.urdma.express.session.ConnectionLostException;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.session.SessionMemory;
import org.urdma.express.staging.StagingRing;
import org.urdma.express.tree.TreeEntry;
import org.urdma.express.tree.TreeWalker;
import org.urdma.verbs.AccessFlags;

/**
 * The pushing side of a copy: walks the sources (a thread of its own, so the transfer starts before the walk ends),
 * sends the entries in batches, hands each file the server planned to the reader threads, and WRITEs their filled
 * windows into the windows the server grants, each followed by the SEND describing it. This thread only posts and
 * polls: it never touches file pages.
 */
public final class Sender implements ControlChannel.Handler {
    /** Entries sent but not yet done, at most: bounds the server's open part files and journals. */
    private static final int OPEN_ENTRIES = 512;
    private static final Object WALK_DONE = new Object();

    private final ControlChannel channel;
    private final CopyOptions options;
    private final TransferCounters counters;
    private final SessionMemory memory;
    private final java.util.function.Consumer<String> warn;
    private final LinkedBlockingQueue<Object> walked = new LinkedBlockingQueue<>(65536);
    private final LinkedBlockingQueue<ReadTask> tasks = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedQueue<Object> ready = new ConcurrentLinkedQueue<>();
    private final Map<Integer, byte[]> wholeHashes = new ConcurrentHashMap<>();
    private final Map<Integer, TreeEntry> entries = new HashMap<>();
    private final ArrayDeque<Message.Grant> grants = new ArrayDeque<>();
    private final ArrayDeque<ReadyChunk> chunks = new ArrayDeque<>();
    private final List<String> failures = new ArrayList<>();
    private ManifestWriter manifest;
    private java.util.Set<String> done;
    private final java.util.Set<String> verifiedNow = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final List<TreeEntry> skipped = new ArrayList<>();
    private final Thread control = Thread.currentThread();
    private StagingRing ring;
    private boolean isReady;
    private boolean walkDone;
    private boolean endSent;
    private Message.Summary summary;
    private String refused;
    private int open;
    private int nextId;
    private long posted;

    /** A sender on {@code channel}, which {@link #close} closes (a server answering a pull closes its own instead). */
    public Sender(ControlChannel channel, CopyOptions options, TransferCounters counters, java.util.function.Consumer<String> warn) {
        this.memory = channel.memory();
        this.channel = channel;
        this.options = options;
        this.counters = counters;
        this.warn = warn;
    }

    /**
     * Copies {@code sources} into {@code destination} (relative to the server's root, "" for the root itself).
     *
     * @return how it ended; a lost connection is a partial result, not an exception
     */
    public CopyResult run(List<Path> sources, String destination) {
        return run(sources, destination, copyId(sources, destination), java.util.Set.of(), new ManifestWriter());
    }

    /** {@return the copy's identity: the same for the same sources and destination, so a rerun is known as one} */
    public static long copyId(List<Path> sources, String destination) {
        StringBuilder b = new StringBuilder(destination);
        for (Path p : sources) b.append('\0').append(p.toAbsolutePath().normalize());
        return java.nio.ByteBuffer.wrap(org.urdma.express.hash.Sha256.of(b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))).getLong();
    }

    /**
     * As {@link #run(List, String)}, leaving out entries an earlier attempt of this run verified ({@code done},
     * relative paths; they count as verified) and adding to {@code manifest}.
     */
    public CopyResult run(List<Path> sources, String destination, long copyId, java.util.Set<String> done, ManifestWriter manifest) {
        this.done = done;
        this.manifest = manifest;
        long start = System.nanoTime();
        counters.filesTotal.set(0);
        counters.bytesTotal.set(0);
        double cpu0 = cpuSeconds();
        List<BlockReader> readers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        String lost = null;
        try {
            channel.send(new Message.Hello(copyId, destination, options.blockSize(), options.flags()));
            if (options.sync().delete() && !options.sync().deleteExcluded() && !options.excludes().isEmpty()) {
                channel.send(new Message.Protect(options.excludes())); // excluded names are not the source's to delete
            }
            awaitReady();
            ring = new StagingRing(memory, StagingRing.slotsFor(options.mem(), options.blockSize()), options.blockSize(), AccessFlags.LOCAL_WRITE);
            threads.add(Thread.ofPlatform().daemon().name("urdma-walk").start(() -> walk(sources)));
            for (int i = 0; i < options.ioThreads(); i++) {
                BlockReader r = new BlockReader(tasks, ready, ring, options.manifest() != null, wholeHashes, counters, () -> LockSupport.unpark(control));
                readers.add(r);
                threads.add(Thread.ofPlatform().daemon().name("urdma-read-" + i).start(r));
            }
            loop();
        } catch (ConnectionLostException e) {
            lost = e.getMessage();
        } catch (AbortedException e) {
            lost = "stopped after " + posted + " bytes (test seam)";
        } finally {
            for (BlockReader r : readers) r.stop();
            for (Thread t : threads) t.interrupt();
            for (Thread t : threads) {
                try {
                    t.join(5000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        if (refused != null) throw new IllegalStateException(refused);
        if (lost == null && options.manifest() != null) {
            try {
                for (TreeEntry e : skipped) manifest.add(e.relative(), BlockReader.wholeFileHash(e.source()));
                manifest.write(options.manifest());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("--manifest: " + options.manifest() + ": " + e.getMessage(), e);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Message.Summary s = summary != null ? summary : new Message.Summary(0, 0, 0, 0, 0);
        return new CopyResult(counters.bytesVerified.get(), counters.filesTotal.get(), counters.filesVerified.get(), seconds, counters.bytesSent.get(),
                counters.resentBlocks.get(), counters.resentBytes.get(), counters.repaired.get(), s.hashesVerified(), cpuSeconds() - cpu0,
                List.copyOf(failures), lost != null, lost, transport(), s.skipped(), s.deleted());
    }

    private String transport() {
        return channel.transport();
    }

    /** {@return relative paths this run verified} */
    public java.util.Set<String> verified() {
        return verifiedNow;
    }

    /** Releases the connection and the session's registered memory. */
    public void close() {
        channel.close();
    }

    private static double cpuSeconds() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean s ? s.getProcessCpuTime() / 1e9 : 0;
    }

    private void walk(List<Path> sources) {
        TreeWalker w = new TreeWalker(options.excludes(), warn);
        try {
            for (Path s : sources) {
                w.walk(s, e -> {
                    try {
                        walked.put(e);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("walk interrupted");
                    }
                    LockSupport.unpark(control);
                });
            }
        } catch (IOException | RuntimeException e) {
            warn.accept("walk: " + e.getMessage());
        } finally {
            walked.add(WALK_DONE);
            LockSupport.unpark(control);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + options.timeout().toNanos();
        while (!isReady) {
            if (refused != null) throw new IllegalStateException(refused);
            if (channel.pump(this) == 0) {
                if (System.nanoTime() - deadline > 0) throw new ConnectionLostException("server: no answer to HELLO within " + options.timeout().toSeconds() + " s");
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private void loop() {
        while (summary == null) {
            if (refused != null) return;
            int work = channel.pump(this);
            work += sendEntries();
            work += drainReady();
            work += postChunks();
            if (walkDone && open == 0 && walked.isEmpty() && !endSent) {
                channel.send(new Message.End());
                endSent = true;
                work++;
            }
            if (work == 0) {
                long now = System.nanoTime();
                if (channel.nanosSinceLastReceive(now) > options.timeout().toNanos()) {
                    throw new ConnectionLostException("server: silent for " + options.timeout().toSeconds() + " s");
                }
                if (channel.peerGone(now)) throw new ConnectionLostException("server: closed the connection");
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private int sendEntries() {
        if (walkDone || open >= OPEN_ENTRIES) return 0;
        List<Message.Entry> batch = new ArrayList<>();
        int bytes = 16;
        while (open + batch.size() < OPEN_ENTRIES) {
            Object o = walked.peek();
            if (o == null) break;
            if (o == WALK_DONE) {
                walked.poll();
                walkDone = true;
                break;
            }
            TreeEntry e = (TreeEntry) o;
            boolean again = done.contains(e.relative()) && e.kind() != Message.Kind.DIRECTORY; // directories go again: their metadata is applied at the end
            if (again && !options.sync().delete()) {
                walked.poll();
                counters.filesTotal.incrementAndGet();
                counters.bytesTotal.addAndGet(e.size());
                continue;
            }
            int need = 40 + e.relative().length() * 3 + e.target().length() * 3;
            if (bytes + need > ControlLimits.MAX_MESSAGE - 64 || batch.size() >= 0xFFFF) break;
            walked.poll();
            int id = nextId++;
            entries.put(id, e);
            // verified by an earlier attempt: named only, so that --delete knows the source has it
            batch.add(again ? new Message.Entry(id, Message.Kind.KEEP, e.relative(), 0, 0, 0, "")
                    : new Message.Entry(id, e.kind(), e.relative(), e.size(), e.mode(), e.mtimeNs(), e.target()));
            bytes += need;
            counters.filesTotal.incrementAndGet();
            counters.bytesTotal.addAndGet(e.size());
        }
        if (batch.isEmpty()) return walkDone ? 1 : 0;
        open += batch.size();
        channel.send(new Message.Files(batch));
        return 1;
    }

    private int drainReady() {
        int n = 0;
        for (Object o; (o = ready.poll()) != null; n++) {
            if (o instanceof ReadyChunk c) {
                chunks.add(c);
            } else if (o instanceof ReadFailure f) {
                failures.add(f.path() + ": " + f.reason());
                open--;
            }
        }
        return n;
    }

    private int postChunks() {
        int n = 0;
        while (!chunks.isEmpty()) {
            ReadyChunk c = chunks.peek();
            if (c.slot() < 0) {
                chunks.poll();
                channel.send(new Message.Chunk(-1, c.segments(), c.ends()));
                n++;
                continue;
            }
            if (grants.isEmpty()) break;
            if (options.abortAfterBytes() >= 0 && posted >= options.abortAfterBytes()) throw new AbortedException();
            chunks.poll();
            Message.Grant g = grants.poll();
            if (c.bytes() > g.length()) throw new IllegalStateException("server: window of " + g.length() + " bytes, this chunk has " + c.bytes());
            channel.sendAfterWrite(ring.region(), ring.address(c.slot()) - ring.region().address(), c.bytes(), g.address(), g.rkey(),
                    new Message.Chunk(g.slot(), c.segments(), c.ends()), ((long) c.slot() << 32) | c.bytes());
            posted += c.bytes();
            n++;
        }
        return n;
    }

    @Override
    public void onWriteDone(long token) {
        ring.give((int) (token >>> 32));
        counters.bytesSent.addAndGet(token & 0xFFFFFFFFL);
    }

    @Override
    public void onMessage(Message m) {
        switch (m) {
            case Message.Ready r -> isReady = true;
            case Message.Error e -> refused = "server: " + e.reason();
            case Message.Grant g -> grants.add(g);
            case Message.Plan p -> {
                TreeEntry e = entry(p.fileId());
                tasks.add(new ReadTask.WholeFile(p.fileId(), e, p.blocks(), p.durable()));
            }
            case Message.Resend r -> {
                TreeEntry e = entry(r.fileId());
                counters.resentBlocks.incrementAndGet();
                if (r.placedBadly()) counters.repaired.incrementAndGet();
                counters.resentBytes.addAndGet(Math.min(options.blockSize(), e.size() - (long) r.block() * options.blockSize()));
                tasks.add(new ReadTask.OneBlock(r.fileId(), e, r.block()));
            }
            case Message.FileDone d -> done(d);
            case Message.Summary s -> summary = s;
            default -> throw new org.urdma.express.protocol.MalformedMessageException(MessageCodec.class.getSimpleName()
                    + ": the server sent " + m.getClass().getSimpleName() + ", which only a client sends");
        }
    }

    private TreeEntry entry(int id) {
        TreeEntry e = entries.get(id);
        if (e == null) throw new org.urdma.express.protocol.MalformedMessageException("the server named file " + id + ", which was never sent");
        return e;
    }

    private void done(Message.FileDone d) {
        TreeEntry e = entries.remove(d.fileId());
        if (e == null) throw new org.urdma.express.protocol.MalformedMessageException("FILE_DONE for file " + d.fileId() + ", which is not open");
        open--;
        if (!d.verified()) {
            failures.add(org.urdma.express.safety.SafePaths.printable(e.relative()) + ": " + d.reason());
            return;
        }
        verifiedNow.add(e.relative());
        if (done.contains(e.relative())) return; // counted, and in the manifest, since the earlier attempt
        counters.filesVerified.incrementAndGet();
        if (e.kind() == Message.Kind.FILE) {
            counters.bytesVerified.addAndGet(e.size());
            if (options.manifest() != null) {
                byte[] h = wholeHashes.remove(d.fileId());
                if (h != null) manifest.add(e.relative(), h);
                else skipped.add(e); // skipped by size: hashed for the manifest once the transfer is over
            }
        }
    }

    /** The abort seam fired. */
    private static final class AbortedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AbortedException() {
            super(null, null, false, false);
        }
    }
}
