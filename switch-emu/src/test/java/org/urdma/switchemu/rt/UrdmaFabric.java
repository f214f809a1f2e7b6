package org.urdma.switchemu.rt;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.core.SwitchCounters;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

/**
 * A topology's network in fresh, uniquely named namespaces with real-time switches running in-process (each opened
 * inside its own namespace, as {@code urdma topo up} runs them) and no test sockets on the hosts (urdma devices open
 * their own). Each switch publishes its counters every millisecond, so that a test thread can read them while it runs
 * ({@link #counter}). Closing stops the switches and removes every namespace.
 */
final class UrdmaFabric implements AutoCloseable {
    final Topology topology;
    final org.urdma.nativeio.netns.Topology net;
    final NetworkBuilder.Network network;
    static final long PUBLISH_PERIOD_NS = 1_000_000;
    /** Every running switch publishes here: room for a few thousand counters. */
    private final CountersManager counters = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 22)), new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 20)));
    final Map<String, RtSwitchRunner> runners = new LinkedHashMap<>();

    /** The topology with one switch, {@code switchName}, running. */
    UrdmaFabric(String yaml, String switchName) throws Exception {
        this(yaml, List.of(switchName), RtOptions.defaults());
    }

    /** The topology with one switch, {@code switchName}, running with {@code options}. */
    UrdmaFabric(String yaml, String switchName, RtOptions options) throws Exception {
        this(yaml, List.of(switchName), options);
    }

    /** The topology with every switch running. */
    UrdmaFabric(String yaml) throws Exception {
        this(yaml, (List<String>) null, RtOptions.defaults());
    }

    private UrdmaFabric(String yaml, List<String> switches, RtOptions options) throws Exception {
        this.topology = TopologyParser.parse(yaml, "test topology");
        this.net = org.urdma.nativeio.netns.Topology.create();
        boolean ok = false;
        try {
            this.network = NetworkBuilder.build(topology, net, ns -> { });
            for (String name : switches == null ? List.copyOf(topology.switches().keySet()) : switches) {
                RtSwitch sw = Netns.call(network.namespace(name), () -> RtSwitch.fromTopology(topology, name, options));
                sw.publish(new SwitchCounters(name, sw.core(), counters), PUBLISH_PERIOD_NS);
                runners.put(name, RtSwitchRunner.start(sw));
            }
            ok = true;
        } finally {
            if (!ok) close();
        }
    }

    String ns(String host) {
        return network.namespace(host);
    }

    /** The first (or only) running switch. */
    RtSwitch sw() {
        return runners.values().iterator().next().sw();
    }

    RtSwitch sw(String name) {
        return runners.get(name).sw();
    }

    /** A switch's published counter {@code label} (e.g. "s1 p0 pfc-tx prio 3"), safe to read while it runs. */
    long counter(String label) {
        AtomicLong value = new AtomicLong(Long.MIN_VALUE);
        counters.forEach((id, type, key, l) -> {
            if (l.equals(label)) value.set(counters.getCounterValue(id));
        });
        if (value.get() == Long.MIN_VALUE) throw new IllegalArgumentException("no switch counter '" + label + "'");
        return value.get();
    }

    /** Stops every switch (counters are stable afterwards). */
    void stopSwitch() {
        runners.values().forEach(RtSwitchRunner::close);
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
