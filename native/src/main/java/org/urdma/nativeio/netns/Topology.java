package org.urdma.nativeio.netns;

import org.urdma.nativeio.Libc;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A set of namespaces, veth pairs and bridges made for one test or one {@code urdma topo} run, all
 * named with a unique prefix, and all torn down by {@link #close()} — also if setup failed half-way,
 * and by a JVM shutdown hook as a last resort.
 *
 * <p>A namespace argument of {@code null} means the root (initial) namespace. Interface names inside
 * a namespace made here need no uniqueness; names in the root namespace should come from
 * {@link #uniqueName(String)}.
 *
 * <pre>{@code
 * try (Topology t = Topology.create()) {
 *     String a = t.namespace("a"), b = t.namespace("b");
 *     t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(9000));
 *     t.run(a, () -> { try (var s = AfPacketSocket.open("eth0", AfPacketOptions.defaults())) { ... } });
 * }
 * }</pre>
 */
public final class Topology implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    private final String prefix;
    private final List<String> namespaces = new ArrayList<>();
    /** Links made in the root namespace (deleted explicitly; namespaced ones go with their namespace). */
    private final Deque<String> rootLinks = new ArrayDeque<>();
    private final Thread hook;
    private boolean closed;
    private boolean kept;

    private Topology(String prefix) {
        this.prefix = prefix;
        this.hook = new Thread(this::teardown, "urdma-topology-cleanup-" + prefix);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** A topology with a fresh unique prefix: "u" + 4 random base-36 characters. */
    public static Topology create() {
        StringBuilder sb = new StringBuilder("u");
        for (int i = 0; i < 4; i++) {
            sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return new Topology(sb.toString());
    }

    /** A topology with a caller-chosen prefix (1..6 characters of [a-z0-9]). */
    public static Topology create(String prefix) {
        if (prefix == null || !prefix.matches("[a-z0-9]{1,6}")) {
            throw new IllegalArgumentException("topology prefix must be 1..6 characters of [a-z0-9], got '" + prefix + "'");
        }
        return new Topology(prefix);
    }

    public String prefix() {
        return prefix;
    }

    /** prefix + logical name, checked to fit an interface name (at most 15 bytes). */
    public String uniqueName(String logical) {
        String n = prefix + logical;
        if (n.length() > 15) {
            throw new IllegalArgumentException("interface name '" + n + "' is longer than 15 characters; shorten '" + logical + "'");
        }
        return n;
    }

    /** Creates namespace "PREFIX-LOGICAL" with loopback up; returns its real name. */
    public String namespace(String logical) {
        checkOpen();
        String ns = prefix + "-" + logical;
        Netns.create(ns);
        namespaces.add(ns);
        Ip.ipIn(ns, "link", "set", "lo", "up");
        return ns;
    }

    /** All namespaces made so far (real names). */
    public List<String> namespaces() {
        return List.copyOf(namespaces);
    }

    /** Options for a link: MTU, MACs of the two ends, whether to bring them up (default: up). */
    public record LinkOptions(int mtu, String macA, String macB, boolean up) {
        public static LinkOptions defaults() {
            return new LinkOptions(0, null, null, true);
        }

        public static LinkOptions mtu(int mtu) {
            return new LinkOptions(mtu, null, null, true);
        }

        public LinkOptions withMacs(String a, String b) {
            return new LinkOptions(mtu, a, b, up);
        }

        public LinkOptions withMtu(int m) {
            return new LinkOptions(m, macA, macB, up);
        }

        public LinkOptions down() {
            return new LinkOptions(mtu, macA, macB, false);
        }
    }

    /** The two ends of a veth pair. */
    public record Veth(String nsA, String nameA, String nsB, String nameB) {
    }

    /**
     * Creates a veth pair with end {@code nameA} in {@code nsA} and {@code nameB} in {@code nsB}
     * (null = root namespace), applying MTU/MAC and bringing both ends up unless told otherwise.
     */
    public Veth veth(String nsA, String nameA, String nsB, String nameB, LinkOptions o) {
        checkOpen();
        List<String> cmd = new ArrayList<>(List.of("ip", "link", "add", nameA));
        linkArgs(cmd, nsA, o.mtu(), o.macA());
        cmd.addAll(List.of("type", "veth", "peer", "name", nameB));
        linkArgs(cmd, nsB, o.mtu(), o.macB());
        Ip.run(cmd);
        if (nsA == null) {
            rootLinks.push(nameA);
        } else if (nsB == null) {
            rootLinks.push(nameB);
        }
        if (o.up()) {
            up(nsA, nameA);
            up(nsB, nameB);
        }
        return new Veth(nsA, nameA, nsB, nameB);
    }

    private static void linkArgs(List<String> cmd, String ns, int mtu, String mac) {
        if (ns != null) {
            cmd.add("netns");
            cmd.add(ns);
        }
        if (mtu > 0) {
            cmd.add("mtu");
            cmd.add(Integer.toString(mtu));
        }
        if (mac != null) {
            cmd.add("address");
            cmd.add(mac);
        }
    }

    /** Creates a Linux bridge {@code name} in {@code ns} and brings it up. */
    public String bridge(String ns, String name) {
        checkOpen();
        ip(ns, "link", "add", name, "type", "bridge");
        if (ns == null) {
            rootLinks.push(name);
        }
        up(ns, name);
        return name;
    }

    /** Enslaves {@code link} to {@code bridge} (both in {@code ns}). */
    public void attach(String ns, String link, String bridge) {
        ip(ns, "link", "set", link, "master", bridge);
    }

    /** Moves {@code link} from {@code fromNs} to {@code toNs} (null = root namespace). */
    public void moveLink(String fromNs, String link, String toNs) {
        ip(fromNs, "link", "set", link, "netns", toNs == null ? "1" : toNs);
        if (fromNs == null) {
            rootLinks.remove(link);
        }
        if (toNs == null) {
            rootLinks.push(link);
        }
    }

    public void up(String ns, String link) {
        ip(ns, "link", "set", link, "up");
    }

    public void down(String ns, String link) {
        ip(ns, "link", "set", link, "down");
    }

    public void setMtu(String ns, String link, int mtu) {
        ip(ns, "link", "set", link, "mtu", Integer.toString(mtu));
    }

    public void setMac(String ns, String link, String mac) {
        ip(ns, "link", "set", link, "address", mac);
    }

    /** Adds an address in CIDR form, e.g. "10.0.0.1/24" or "fd00::1/64". */
    public void addAddress(String ns, String link, String cidr) {
        ip(ns, "addr", "add", cidr, "dev", link);
    }

    /** Turns IPv6 off in {@code ns} (no router solicitations / MLD frames on its links). */
    public void disableIpv6(String ns) {
        Netns.exec(ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
    }

    /** Runs {@code ip ARGS} in {@code ns} (null = root). */
    public String ip(String ns, String... args) {
        return ns == null ? Ip.ip(args) : Ip.ipIn(ns, args);
    }

    /** Runs a command to completion inside {@code ns}; returns stdout. */
    public String exec(String ns, String... command) {
        return Netns.exec(ns, command);
    }

    /** Runs code on the current thread inside {@code ns} (see {@link Netns#run}). */
    public void run(String ns, Runnable action) {
        Netns.run(ns, action);
    }

    public <T> T call(String ns, Callable<T> action) throws Exception {
        return Netns.call(ns, action);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("topology " + prefix + " is closed");
        }
    }

    /**
     * Leaves everything in place when closed and on JVM exit (for {@code urdma topo up}); delete later
     * with {@link Netns#delete} / {@code ip link delete}.
     */
    public synchronized void keep() {
        kept = true;
    }

    /** Deletes everything this topology made (unless {@link #keep() kept}); idempotent. Errors are collected, not thrown midway. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // JVM already shutting down: the hook runs teardown, which is idempotent
        }
    }

    private synchronized void teardown() {
        if (closed) {
            return;
        }
        closed = true;
        if (kept) {
            return;
        }
        List<String> errors = new ArrayList<>();
        while (!rootLinks.isEmpty()) {
            String link = rootLinks.pop();
            try {
                if (org.urdma.nativeio.NetInterface.exists(link)) {
                    Ip.ip("link", "delete", link);
                }
            } catch (RuntimeException e) {
                errors.add(e.getMessage());
            }
        }
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            try {
                Netns.delete(namespaces.get(i));
            } catch (RuntimeException e) {
                errors.add(e.getMessage());
            }
        }
        namespaces.clear();
        if (!errors.isEmpty()) {
            System.err.println("urdma topology " + prefix + " (pid " + Libc.getpid() + ") cleanup problems: " + errors);
        }
    }

    @Override
    public String toString() {
        return "Topology[" + prefix + ", namespaces " + namespaces + ", root links " + rootLinks + "]";
    }
}
