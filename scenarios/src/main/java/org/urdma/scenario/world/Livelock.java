package org.urdma.scenario.world;

import java.util.Locale;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.FlowResult;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * The livelock of Guo et al., "RDMA over Commodity Ethernet at Scale" (SIGCOMM 2016): a switch drops 1/256 of
 * the packets towards the receiver; RDMA WRITEs of messages much longer than 256 packets never complete under
 * go-back-0 (every loss restarts the message, which then meets another loss), while go-back-N resends from the
 * lost packet and keeps most of the link. Each policy runs in a world of its own, same seed, same drops.
 */
public final class Livelock {
    /** Link rate, message size, simulated time, drop probability, seed. */
    public record Options(long rateBps, int messageBytes, long durationNs, double dropProbability, long seed) {
        public Options {
            if (rateBps <= 0) throw new IllegalArgumentException("rate: must be > 0");
            if (messageBytes < 1) throw new IllegalArgumentException("size: must be >= 1 byte");
            if (durationNs <= 0) throw new IllegalArgumentException("duration: must be > 0");
            if (dropProbability < 0 || dropProbability >= 1) throw new IllegalArgumentException("drop: must be in [0, 1)");
        }

        /** 10 Gbit/s, 4 MiB messages (4096 packets of 1 KiB), 50 ms, 1/256. */
        public static Options defaults() {
            return new Options(10_000_000_000L, 4 << 20, 50_000_000L, 1.0 / 256, 1);
        }

        /** The CI form: 20 ms. */
        public static Options quick() {
            return new Options(10_000_000_000L, 4 << 20, 20_000_000L, 1.0 / 256, 1);
        }
    }

    private static final long START = 1_000_000;

    private Livelock() {
    }

    public static ResultTable run(Options o) {
        ResultTable t = new ResultTable(String.format(Locale.ROOT,
                "livelock: RC WRITE of %d-byte messages at %.0f Gbit/s, switch drops %.4f %% towards the receiver, %.1f ms",
                o.messageBytes, o.rateBps / 1e9, o.dropProbability * 100, o.durationNs / 1e6),
                "reliability", "messages", "goodput_gbps", "retransmitted", "switch_drops");
        for (String policy : new String[] {"go-back-0", "go-back-n"}) {
            try (World w = new World(o.seed, START)) {
                SwitchConfig sc = new SwitchConfig().bufferBytes(4_000_000);
                sc.port(new PortConfig().rateBps(o.rateBps));
                sc.port(new PortConfig().rateBps(o.rateBps));
                SwitchNode s = w.addSwitch("s1", sc);
                DeviceHost a = w.addDevice(DeviceConfig.named("a", 1), 4096, 0);
                DeviceHost b = w.addDevice(DeviceConfig.named("b", 2), 4096, 0);
                w.connect(a, s, 0, o.rateBps, 1_000, null, null);
                w.connect(b, s, 1, o.rateBps, 1_000, null, ImpairmentConfig.none().lossRandom(o.dropProbability, 0));
                MessageWorkload m = new MessageWorkload(w, policy, a, b, MessageWorkload.Op.WRITE, QpType.RC,
                        o.messageBytes, 1, 0, START + o.durationNs, LossRecovery.named(policy), RateControl.none(),
                        MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withTimeout(10), o.seed);
                w.add(a, m, START);
                w.runUntil(START + o.durationNs);
                FlowResult r = m.result();
                double goodput = r.bytes() * 8.0 / o.durationNs;
                t.row(policy, r.messages(), String.format(Locale.ROOT, "%.2f", goodput), r.retransmitted(),
                        w.impairmentLost());
            }
        }
        return t;
    }
}
