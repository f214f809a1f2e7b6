package org.urdma.transport.api;

import java.util.Locale;
import java.util.SplittableRandom;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.transport.driver.EngineDriver;
import org.urdma.transport.driver.InlineDriver;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.RealTimeDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.link.ethernet.EthernetLinkConfig;
import org.urdma.transport.link.ethernet.EthernetLinks;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;

/**
 * Where a Java application starts: opens urdma devices on a link. Then {@link UrdmaDevice#listen} and
 * {@link UrdmaDevice#connect} give connected QPs.
 * <pre>{@code
 * try (UrdmaDevice dev = Urdma.open(DeviceOptions.afPacket("veth0").withIp("10.0.0.1/24"))) { ... }
 * try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) { ... pair.first() ... pair.second() ... }
 * }</pre>
 */
public final class Urdma {
    private Urdma() {
    }

    /**
     * Opens a device on an {@code afpacket:IF} or {@code tap:IF} link (root or CAP_NET_RAW/CAP_NET_ADMIN) and starts
     * its driver and QP1 ({@link UrdmaDevice#rdmaCm()}). A device on the memory link has no peer alone: use {@link #memoryPair}.
     *
     * @param o the link and its options
     * @return the device, its engine running
     * @throws RuntimeException in one line naming what is wrong: an option (IllegalArgumentException), an unknown
     *                          interface or an address the kernel owns
     */
    public static UrdmaDevice open(DeviceOptions o) {
        return open(o, MemoryFabric.Telemetry.IN_MEMORY);
    }

    /**
     * As {@link #open(DeviceOptions)}, counting into and journaling to what {@code telemetry} gives for the device (a
     * counters file {@code urdma stat} reads, a journal {@code urdma journal} reads); the caller closes those after the
     * device.
     *
     * @param o         the link and its options
     * @param telemetry where the device's engine counts and journals
     * @return the device, its engine running
     */
    public static UrdmaDevice open(DeviceOptions o, MemoryFabric.Telemetry telemetry) {
        String kind = o.linkKind();
        if (kind.equals("memory")) {
            throw new IllegalArgumentException("link: a memory device needs its peer in this JVM, use Urdma.memoryPair");
        }
        FramingKind framing = FramingKind.parse(o.framing());
        // TPACKET_V2: V3 hands a block over only when its retire timer fires, which stalls RC's window
        EthernetLinks.Opened l = EthernetLinks.open(o.link(), o.ip(), o.mac(),
                mac -> EthernetLinkConfig.of(framing, PortIdentity.of(mac, o.ip())), AfPacketOptions.Version.V2);
        UrdmaDevice d = start(o, l.link(), l.closer(), l.datapath(), framing, l.datapath().config().port().mac(), l.description(), telemetry);
        try {
            d.rdmaCm(); // QP1 on every real port, as on a NIC: a REQ for a port nobody listens on gets a REJ, not silence
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
        return d;
    }

    /**
     * Two devices in this JVM joined by an in-memory link, each with its own driver.
     *
     * @param o options of both devices; the link must be {@code memory}
     * @return both devices, their engines running
     */
    public static MemoryPair memoryPair(DeviceOptions o) {
        return memoryPair(o, ImpairmentConfig.none(), ImpairmentConfig.none());
    }

    /**
     * As {@link #memoryPair(DeviceOptions)}, with netem-like impairments (loss, reordering, delay) on each direction
     * of the link: an application's test of how it rides a lossy path, in one JVM.
     *
     * @param o             options of both devices; the link must be {@code memory}
     * @param firstToSecond what the link does to frames from the first device to the second
     * @param secondToFirst and the other way
     * @return both devices, their engines running
     */
    public static MemoryPair memoryPair(DeviceOptions o, ImpairmentConfig firstToSecond, ImpairmentConfig secondToFirst) {
        return memoryPair(o, firstToSecond, secondToFirst, MemoryFabric.Telemetry.IN_MEMORY);
    }

    /**
     * As {@link #memoryPair(DeviceOptions, ImpairmentConfig, ImpairmentConfig)}, each device counting into and journaling
     * to what {@code telemetry} gives for it; the caller closes those after the pair.
     *
     * @param o             options of both devices; the link must be {@code memory}
     * @param firstToSecond what the link does to frames from the first device to the second
     * @param secondToFirst and the other way
     * @param telemetry     where the devices' engines count and journal
     * @return both devices, their engines running
     */
    public static MemoryPair memoryPair(DeviceOptions o, ImpairmentConfig firstToSecond, ImpairmentConfig secondToFirst,
                                        MemoryFabric.Telemetry telemetry) {
        if (!o.linkKind().equals("memory")) throw new IllegalArgumentException("link: memoryPair needs memory, was '" + o.link() + "'");
        FramingKind framing = FramingKind.parse(o.framing());
        DeviceConfig a = config(o, o.name(), o.mac() != null ? PortIdentity.parseMac(o.mac()) : new byte[] {2, 0, 0, 0, 0, 1});
        DeviceConfig b = config(o, o.name() + "-peer", new byte[] {2, 0, 0, 0, 0, 2});
        if (java.util.Arrays.equals(a.mac(), b.mac())) b = config(o, o.name() + "-peer", new byte[] {2, 0, 0, 0, 0, 3});
        long now = System.nanoTime();
        MemoryFabric f = new MemoryFabric(a, b, MemoryLink.Config.defaults().withLatency(0), MemoryFabric.CodecFactory.wire(framing),
                firstToSecond, secondToFirst, now, now, telemetry);
        UrdmaDevice first = new UrdmaDevice(f.a, null, null, framing, driver(o, f.a), "memory link");
        UrdmaDevice second = new UrdmaDevice(f.b, null, null, framing, driver(o, f.b), "memory link");
        return new MemoryPair(first, second);
    }

    /**
     * Two devices on one in-memory link; closing the pair closes both.
     *
     * @param first  the device whose name the options gave
     * @param second its peer on the link
     */
    public record MemoryPair(UrdmaDevice first, UrdmaDevice second) implements AutoCloseable {
        @Override
        public void close() {
            try {
                first.close();
            } finally {
                second.close();
            }
        }
    }

    private static UrdmaDevice start(DeviceOptions o, org.urdma.transport.packet.Link link, AutoCloseable owned,
                                     org.urdma.transport.link.ethernet.EthernetDatapath port, FramingKind framing, byte[] mac,
                                     String describe, MemoryFabric.Telemetry telemetry) {
        try {
            DeviceConfig config = config(o, o.name(), mac);
            org.urdma.transport.counters.EngineCounters counters = telemetry.counters(config);
            if (counters == null) counters = org.urdma.transport.counters.EngineCounters.inMemory(config.name());
            SoftDevice d = new SoftDevice(config, link, new SplittableRandom(System.nanoTime()), System.nanoTime(), counters,
                    telemetry.journal(config, counters));
            return new UrdmaDevice(d, owned, port, framing, driver(o, d), describe);
        } catch (RuntimeException e) {
            try {
                owned.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static DeviceConfig config(DeviceOptions o, String name, byte[] mac) {
        DeviceConfig n = DeviceConfig.named(name, 0); // the engine's default limits, with this port's MAC and policies
        return new DeviceConfig(name, mac, n.maxQp(), n.maxQpWr(), n.maxSge(), n.maxCqe(), n.maxMr(), n.maxRdAtomic(),
                n.maxInline(), n.window(), n.txBurst(), LossRecovery.named(o.lossRecovery().toLowerCase(Locale.ROOT)),
                RateControl.named(o.rateControl()));
    }

    private static EngineDriver driver(DeviceOptions o, SoftDevice d) {
        return switch (o.driver()) {
            case THREAD -> new RealTimeDriver(d, RealTimeDriver.Idle.BACKOFF);
            case THREAD_BUSY_SPIN -> new RealTimeDriver(d, RealTimeDriver.Idle.BUSY_SPIN);
            case INLINE -> new InlineDriver(d);
        };
    }
}
