package org.urdma.transport.port;

/**
 * The neighbour cache of a port: IPv4 → MAC with request retries and expiry, as pure logic (time is a
 * parameter, no threads). {@link #resolve} starts a resolution; {@link #poll} emits the requests that are due
 * through a {@link RequestSender}; {@link #learn} records an answer (or a sender seen in a request).
 * Fixed capacity, open addressing, no allocation after construction; when full, the oldest entry is reused.
 */
public final class ArpResolver {
    /** Still resolving (a request is out). */
    public static final long PENDING = -1;
    /** Gave up after the configured requests; {@link #resolve} retries after the failure hold-down. */
    public static final long FAILED = -2;

    /** Sends one ARP request for {@code ip}. */
    @FunctionalInterface
    public interface RequestSender {
        /** @return false if it could not be sent now (it is retried on the next poll) */
        boolean sendRequest(int ip);
    }

    /** Retry interval, requests before giving up, how long an answer stays valid, how long a failure is remembered. */
    public record Config(long retryNanos, int maxRequests, long reachableNanos, long failedHoldNanos) {
        public Config {
            if (retryNanos <= 0) throw new IllegalArgumentException("retryNanos: must be > 0");
            if (maxRequests < 1) throw new IllegalArgumentException("maxRequests: must be >= 1");
            if (reachableNanos <= 0) throw new IllegalArgumentException("reachableNanos: must be > 0");
            if (failedHoldNanos < 0) throw new IllegalArgumentException("failedHoldNanos: must be >= 0");
        }

        /** Linux-like: a request a second... shortened to 200 ms × 5 here; answers valid 30 s; failures held 1 s. */
        public static Config defaults() {
            return new Config(200_000_000L, 5, 30_000_000_000L, 1_000_000_000L);
        }
    }

    private static final byte FREE = 0, INCOMPLETE = 1, REACHABLE = 2, STALE = 3, FAILED_STATE = 4;

    private final Config config;
    private final int mask;
    private final int[] ips;
    private final long[] macs;
    private final byte[] states;
    private final long[] deadlines; // INCOMPLETE/STALE: next request; REACHABLE: expiry; FAILED: end of hold-down
    private final int[] requestsSent;
    private final long[] touched;
    private int size;
    /** Whether any entry may need a request at or after {@link #due}; lets {@link #poll} skip the scan on every pass. */
    private boolean pending;
    private long due;
    private long requests, replies, failures;

    public ArpResolver(int capacity, Config config) {
        if (capacity < 1 || capacity > (1 << 20)) throw new IllegalArgumentException("capacity: must be 1..2^20, was " + capacity);
        int slots = Integer.highestOneBit(capacity * 2 - 1) << 1;
        this.config = config;
        this.mask = slots - 1;
        this.ips = new int[slots];
        this.macs = new long[slots];
        this.states = new byte[slots];
        this.deadlines = new long[slots];
        this.requestsSent = new int[slots];
        this.touched = new long[slots];
    }

    /**
     * The MAC of {@code ip} (low 48 bits) if known, else {@link #PENDING} (a resolution is started or running)
     * or {@link #FAILED}. An expired answer is still returned while it is being re-confirmed (Linux's STALE).
     */
    public long resolve(int ip, long now) {
        int i = find(ip);
        if (i < 0) {
            i = insert(ip, now);
            states[i] = INCOMPLETE;
            deadlines[i] = now; // due now: the next poll sends the first request
            requestsSent[i] = 0;
            dueAt(now);
            return PENDING;
        }
        touched[i] = now;
        switch (states[i]) {
            case REACHABLE:
                if (now - deadlines[i] >= 0) {
                    states[i] = STALE;
                    deadlines[i] = now;
                    requestsSent[i] = 0;
                    dueAt(now);
                }
                return macs[i];
            case STALE:
                return macs[i];
            case FAILED_STATE:
                if (now - deadlines[i] >= 0) {
                    states[i] = INCOMPLETE;
                    deadlines[i] = now;
                    requestsSent[i] = 0;
                    dueAt(now);
                    return PENDING;
                }
                return FAILED;
            default:
                return PENDING;
        }
    }

    /** Records that {@code ip} is at {@code mac} (an ARP reply, or the sender of a request addressed to us). */
    public void learn(int ip, long mac, long now) {
        if (ip == 0) return;
        int i = find(ip);
        if (i < 0) i = insert(ip, now);
        macs[i] = mac & 0xFFFF_FFFF_FFFFL;
        states[i] = REACHABLE;
        deadlines[i] = now + config.reachableNanos();
        touched[i] = now;
        replies++;
    }

    /** Sends the requests that are due; entries out of tries become FAILED (STALE ones are dropped). Returns requests sent. */
    public int poll(long now, RequestSender sender) {
        if (size == 0 || !pending || now - due < 0) return 0; // called on every engine pass: no scan unless something is due
        int sent = 0;
        pending = false;
        for (int i = 0; i <= mask; i++) {
            byte s = states[i];
            if (s != INCOMPLETE && s != STALE) continue;
            if (now - deadlines[i] < 0) {
                dueAt(deadlines[i]);
                continue;
            }
            if (requestsSent[i] >= config.maxRequests()) {
                failures++;
                states[i] = FAILED_STATE;
                deadlines[i] = now + config.failedHoldNanos();
                continue;
            }
            if (!sender.sendRequest(ips[i])) {
                dueAt(now); // retried on the next poll
                continue;
            }
            requestsSent[i]++;
            deadlines[i] = now + config.retryNanos();
            dueAt(deadlines[i]);
            requests++;
            sent++;
        }
        return sent;
    }

    private void dueAt(long t) {
        if (!pending || t - due < 0) due = t;
        pending = true;
    }

    /** Earliest time {@link #poll} has something to do, or Long.MAX_VALUE. */
    public long nextDeadline() {
        if (size == 0) return Long.MAX_VALUE;
        long t = Long.MAX_VALUE;
        for (int i = 0; i <= mask; i++) {
            if (states[i] == INCOMPLETE || states[i] == STALE) t = Math.min(t, deadlines[i]);
        }
        return t;
    }

    public long requestsSent() {
        return requests;
    }

    public long answersLearned() {
        return replies;
    }

    public long failures() {
        return failures;
    }

    private int find(int ip) {
        int i = hash(ip) & mask;
        for (int n = 0; n <= mask; n++) {
            if (states[i] == FREE) return -1;
            if (ips[i] == ip) return i;
            i = (i + 1) & mask;
        }
        return -1;
    }

    /** A slot for {@code ip}: a free one while under half full, else the least recently used (rehashing the table). */
    private int insert(int ip, long now) {
        if (size * 2 >= mask + 1) evictOldest();
        int i = hash(ip) & mask;
        while (states[i] != FREE) i = (i + 1) & mask;
        ips[i] = ip;
        touched[i] = now;
        size++;
        return i;
    }

    private void evictOldest() {
        int victim = -1;
        for (int i = 0; i <= mask; i++) {
            if (states[i] != FREE && (victim < 0 || touched[i] - touched[victim] < 0)) victim = i;
        }
        if (victim < 0) return;
        states[victim] = FREE;
        size--;
        // re-seat the run after the hole so lookups do not stop early (linear probing deletion)
        int i = (victim + 1) & mask;
        while (states[i] != FREE) {
            int ip = ips[i];
            long mac = macs[i], dl = deadlines[i], t = touched[i];
            byte s = states[i];
            int r = requestsSent[i];
            states[i] = FREE;
            int j = hash(ip) & mask;
            while (states[j] != FREE) j = (j + 1) & mask;
            ips[j] = ip; macs[j] = mac; deadlines[j] = dl; touched[j] = t; states[j] = s; requestsSent[j] = r;
            i = (i + 1) & mask;
        }
    }

    private static int hash(int ip) {
        return (ip * 0x9E3779B1) >>> 7;
    }
}
