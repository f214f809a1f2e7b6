package org.urdma.switchemu.rt;

import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.core.SwitchCounters;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

/**
 * A topology's network in fresh, uniquely named namespaces with the real-time switch running in-process and no
 * test sockets on the hosts (urdma devices open their own). The switch publishes its counters every millisecond, so
 * that a test thread can read them while it runs ({@link #counter}). Closing stops the switch and removes every
 * namespace.
 */
final class UrdmaFabric implements AutoCloseable {
    static final long PUBLISH_PERIOD_NS = 1_000_000;
    final Topology topology;
    final org.urdma.nativeio.netns.Topology net;
    final NetworkBuilder.Network network;
    private final CountersManager counters = new CountersManager(new UnsafeBuffer(new byte[1 << 20]), new UnsafeBuffer(new byte[1 << 16]));
    RtSwitchRunner runner;

    UrdmaFabric(String yaml, String switchName) throws Exception {
        this(yaml, switchName, RtOptions.defaults());
    }

    UrdmaFabric(String yaml, String switchName, RtOptions options) throws Exception {
        this.topology = TopologyParser.parse(yaml, "test topology");
        this.net = org.urdma.nativeio.netns.Topology.create();
        boolean ok = false;
        try {
            this.network = NetworkBuilder.build(topology, net, ns -> { });
            RtSwitch sw = Netns.call(network.namespace(switchName), () -> RtSwitch.fromTopology(topology, switchName, options));
            sw.publish(new SwitchCounters(switchName, sw.core(), counters), PUBLISH_PERIOD_NS);
            runner = RtSwitchRunner.start(sw);
            ok = true;
        } finally {
            if (!ok) close();
        }
    }

    String ns(String host) {
        return network.namespace(host);
    }

    RtSwitch sw() {
        return runner.sw();
    }

    /** The switch's published counter {@code label} (e.g. "s1 p0 pfc-tx prio 3"), safe to read while it runs. */
    long counter(String label) {
        AtomicLong value = new AtomicLong(Long.MIN_VALUE);
        counters.forEach((id, type, key, l) -> {
            if (l.equals(label)) value.set(counters.getCounterValue(id));
        });
        if (value.get() == Long.MIN_VALUE) throw new IllegalArgumentException("no switch counter '" + label + "'");
        return value.get();
    }

    void stopSwitch() {
        if (runner != null) runner.close();
    }

    @Override
    public void close() {
        try {
            stopSwitch();
        } finally {
            net.close();
        }
    }
}
