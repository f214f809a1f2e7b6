package org.urdma.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A namespace with bridge br0 (10.77.0.1/24) and guests at 10.77.0.11, .12, ... each on its own TAP,
 * booted in parallel. Closing powers the guests off and deletes the namespace.
 */
final class TwoGuestFixture implements AutoCloseable {

    static final String BRIDGE = "br0";
    static final String HOST_IP = "10.77.0.1";
    /** The MAC of a test's own urdma endpoint on its TAP. */
    static final String URDMA_MAC = "02:75:72:64:6d:50";

    final Netns ns;
    final List<QemuGuest> guests = new ArrayList<>();
    final List<Duration> bootTimes = new ArrayList<>();
    final Path workDir;
    private final AtomicInteger taps = new AtomicInteger();

    private TwoGuestFixture(Netns ns, Path workDir) {
        this.ns = ns;
        this.workDir = workDir;
    }

    static String guestIp(int i) {
        return "10.77.0." + (11 + i);
    }

    /** The MAC of guest {@code i}'s eth0. */
    static String guestMac(int i) {
        return String.format("52:54:00:77:00:%02x", 11 + i);
    }

    /** Boots {@code count} guests with the given MTU on guests, TAPs and bridge. */
    static TwoGuestFixture start(int count, int mtu, Path workDir) throws IOException, InterruptedException {
        return start(count, mtu, mtu, workDir);
    }

    /**
     * Boots {@code count} guests whose eth0 starts at {@code guestMtu}, on TAPs and a bridge of
     * {@code linkMtu} (≥ guestMtu, so a guest can later raise its MTU, e.g. to 4200 for active_mtu 4096).
     */
    static TwoGuestFixture start(int count, int guestMtu, int linkMtu, Path workDir)
            throws IOException, InterruptedException {
        int mtu = guestMtu;
        GuestImage image = GuestImage.get();
        Netns ns = Netns.create();
        TwoGuestFixture f = new TwoGuestFixture(ns, workDir);
        try {
            ns.addBridge(BRIDGE, HOST_IP + "/24", linkMtu);
            for (int i = 0; i < count; i++) {
                String tap = "tap" + i;
                ns.addTap(tap, BRIDGE, linkMtu);
                f.guests.add(QemuGuest.boot(ns, image, "g" + i, tap, guestMac(i),
                        guestIp(i) + "/24", mtu, workDir));
            }
            for (QemuGuest g : f.guests) {
                f.bootTimes.add(g.awaitReady(Duration.ofSeconds(180)));
            }
            return f;
        } catch (IOException | InterruptedException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    QemuGuest guest(int i) {
        return guests.get(i);
    }

    /** A TAP name for a test's own endpoint (e.g. urdma), unique for the fixture's life: tapu0, tapu1, ... */
    String nextTap() {
        return "tapu" + taps.getAndIncrement();
    }

    /**
     * A fresh TAP on the bridge for a test's own urdma endpoint (urdma's TAP goes away when it closes it), deleted on
     * close.
     */
    Tap newTap() throws IOException, InterruptedException {
        String name = nextTap();
        ns.addTap(name, BRIDGE, 4200);
        return new Tap(ns.name(), name);
    }

    /** A test's TAP in namespace {@code ns}. */
    record Tap(String ns, String name) implements AutoCloseable {
        /** urdma's port options on this TAP: the link, the address {@link StockToolRun#URDMA_IP}/24 and the MAC. */
        List<String> urdmaPort() {
            return List.of("--link", "tap:" + name, "--ip", StockToolRun.URDMA_IP + "/24", "--mac", URDMA_MAC);
        }

        /**
         * {@return the arguments of a urdma rdma_cm tool (rping, mckey, rdma_server, ...) on this TAP}: {@code tool}
         * and its options, the port options and, unless given, a 60 s timeout
         */
        String[] urdma(String tool, String... options) {
            List<String> a = new ArrayList<>(List.of(tool));
            a.addAll(List.of(options));
            a.addAll(urdmaPort());
            if (!a.contains("--timeout-s")) a.addAll(List.of("--timeout-s", "60"));
            return a.toArray(String[]::new);
        }

        @Override
        public void close() {
            Interop.runQuietly("ip", "-n", ns, "link", "del", name);
        }
    }

    /** Boots one more guest (index guests.size(), on its own TAP at {@code linkMtu}) and waits until it is ready. */
    QemuGuest addGuest(int guestMtu, int linkMtu) throws IOException, InterruptedException {
        int i = guests.size();
        String tap = "tap" + i;
        ns.addTap(tap, BRIDGE, linkMtu);
        QemuGuest g = null;
        try {
            g = QemuGuest.boot(ns, GuestImage.get(), "g" + i, tap, guestMac(i),
                    guestIp(i) + "/24", guestMtu, workDir);
            guests.add(g);
            bootTimes.add(g.awaitReady(Duration.ofSeconds(180)));
            return g;
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (g != null) removeLastGuest();
            else Interop.runQuietly("ip", "-n", ns.name(), "link", "del", tap);
            throw e;
        }
    }

    /** Powers off the guest added last and deletes its TAP. */
    void removeLastGuest() {
        int i = guests.size() - 1;
        guests.remove(i).close();
        if (bootTimes.size() > i) bootTimes.remove(i);
        Interop.runQuietly("ip", "-n", ns.name(), "link", "del", "tap" + i);
    }

    @Override
    public void close() {
        for (QemuGuest g : guests) {
            g.close();
        }
        ns.close();
    }
}
