package org.urdma.transport.api;

import java.util.Locale;
import java.util.Objects;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;

/**
 * What {@link Urdma#open} needs to bring up a device: the link, the wire framing, the port's addresses, the
 * per-QP policies and what drives the engine. Immutable; each {@code withX} returns a copy. Values are checked
 * when set, with a one-line message naming the option.
 *
 * @param link         {@code memory}, {@code afpacket:IF} or {@code tap:IF}
 * @param framing      wire format, {@code roce2} (the default), {@code roce1} or a PAXI format (see {@link FramingKind#parse})
 * @param ip           this port's own IPv4 address as {@code A.B.C.D/NN} (RoCEv2 on an Ethernet link), or null
 * @param mac          this port's MAC as {@code aa:bb:cc:dd:ee:ff}, or null for the interface's (a fixed local one on
 *                     TAP, one per end on the memory link)
 * @param lossRecovery loss recovery of every QP: {@code gbn} (go-back-N, the default) or {@code gb0}
 * @param rateControl  rate control of every QP: {@code none} (the default), {@code window:BYTES/NANOS} or any name
 *                     {@link org.urdma.transport.rate.RateControl#named} takes ({@code dcqcn}, {@code dctcp}, {@code timely}, ...)
 * @param driver       what runs the engine
 * @param name         the device's name (for messages and counters)
 */
public record DeviceOptions(String link, String framing, String ip, String mac, String lossRecovery, String rateControl,
                            Driver driver, String name) {
    /** What runs a device's engine. */
    public enum Driver {
        /** Its own Agrona agent thread (backing off when idle): the engine progresses while the application sleeps. */
        THREAD,
        /** The same thread, spinning: lowest latency, one core per device. */
        THREAD_BUSY_SPIN,
        /**
         * The application's thread, inside CQ polls and control calls: no thread of its own. The application must keep
         * polling while its peer still waits on it (an ACK it owes leaves only in a pass), so a side that only serves
         * RDMA READ/WRITE or waits at a barrier wants {@link #THREAD}.
         */
        INLINE
    }

    /** Checks every option, naming the one that is wrong. */
    public DeviceOptions {
        Objects.requireNonNull(link, "link");
        String l = link.toLowerCase(Locale.ROOT);
        if (!l.equals("memory") && !((l.startsWith("afpacket:") || l.startsWith("tap:")) && link.indexOf(':') < link.length() - 1)) {
            throw new IllegalArgumentException("link: memory, afpacket:IF or tap:IF, was '" + link + "'");
        }
        FramingKind.parse(Objects.requireNonNull(framing, "framing"));
        LossRecovery.named(Objects.requireNonNull(lossRecovery, "lossRecovery"));
        RateControl.named(Objects.requireNonNull(rateControl, "rateControl"));
        Objects.requireNonNull(driver, "driver");
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("name: must not be empty");
    }

    /** {@return the memory link, RoCEv2 framing, go-back-N, no rate control, an agent thread per device} */
    public static DeviceOptions memory() {
        return new DeviceOptions("memory", "roce2", null, null, "gbn", "none", Driver.THREAD, "urdma0");
    }

    /**
     * Options for an AF_PACKET link.
     *
     * @param ifname the interface, e.g. {@code eth0}
     * @return an AF_PACKET socket on it (root or CAP_NET_RAW); RoCEv2 needs {@link #withIp}
     */
    public static DeviceOptions afPacket(String ifname) {
        return memory().withLink("afpacket:" + ifname);
    }

    /**
     * Options for a TAP link.
     *
     * @param ifname the TAP's name, e.g. {@code tap0}
     * @return a TAP interface this process creates (or attaches to) and owns
     */
    public static DeviceOptions tap(String ifname) {
        return memory().withLink("tap:" + ifname);
    }

    /**
     * A copy with this option changed.
     *
     * @param l the link: {@code memory}, {@code afpacket:IF} or {@code tap:IF}
     * @return a copy with it
     */
    public DeviceOptions withLink(String l) {
        return new DeviceOptions(l, framing, ip, mac, lossRecovery, rateControl, driver, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param f the wire format
     * @return a copy with it
     */
    public DeviceOptions withFraming(String f) {
        return new DeviceOptions(link, f, ip, mac, lossRecovery, rateControl, driver, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param cidr this port's IPv4 address {@code A.B.C.D/NN}, or null
     * @return a copy with it
     */
    public DeviceOptions withIp(String cidr) {
        return new DeviceOptions(link, framing, cidr, mac, lossRecovery, rateControl, driver, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param m this port's MAC, or null for the default
     * @return a copy with it
     */
    public DeviceOptions withMac(String m) {
        return new DeviceOptions(link, framing, ip, m, lossRecovery, rateControl, driver, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param r {@code gbn} or {@code gb0}
     * @return a copy with it
     */
    public DeviceOptions withLossRecovery(String r) {
        return new DeviceOptions(link, framing, ip, mac, r, rateControl, driver, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param r {@code none} or {@code window:BYTES/NANOS}
     * @return a copy with it
     */
    public DeviceOptions withRateControl(String r) {
        return new DeviceOptions(link, framing, ip, mac, lossRecovery, r, driver, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param d what runs the engine
     * @return a copy with it
     */
    public DeviceOptions withDriver(Driver d) {
        return new DeviceOptions(link, framing, ip, mac, lossRecovery, rateControl, d, name);
    }

    /**
     * A copy with this option changed.
     *
     * @param n the device's name
     * @return a copy with it
     */
    public DeviceOptions withName(String n) {
        return new DeviceOptions(link, framing, ip, mac, lossRecovery, rateControl, driver, n);
    }

    String linkKind() {
        return link.substring(0, link.indexOf(':') < 0 ? link.length() : link.indexOf(':')).toLowerCase(Locale.ROOT);
    }
}
