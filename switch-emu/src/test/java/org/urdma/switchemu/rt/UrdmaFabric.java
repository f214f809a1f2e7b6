package org.urdma.switchemu.rt;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

/**
 * A topology's network in fresh, uniquely named namespaces with real-time switches running in-process (each opened
 * inside its own namespace, as {@code urdma topo up} runs them) and no test sockets on the hosts (urdma devices open
 * their own). Closing stops the switches and removes every namespace.
 */
final class UrdmaFabric implements AutoCloseable {
    final Topology topology;
    final org.urdma.nativeio.netns.Topology net;
    final NetworkBuilder.Network network;
    final Map<String, RtSwitchRunner> runners = new LinkedHashMap<>();

    /** The topology with one switch, {@code switchName}, running. */
    UrdmaFabric(String yaml, String switchName) throws Exception {
        this(yaml, List.of(switchName));
    }

    /** The topology with every switch running. */
    UrdmaFabric(String yaml) throws Exception {
        this(yaml, (List<String>) null);
    }

    private UrdmaFabric(String yaml, List<String> switches) throws Exception {
        this.topology = TopologyParser.parse(yaml, "test topology");
        this.net = org.urdma.nativeio.netns.Topology.create();
        boolean ok = false;
        try {
            this.network = NetworkBuilder.build(topology, net, ns -> { });
            for (String name : switches == null ? List.copyOf(topology.switches().keySet()) : switches) {
                RtSwitch sw = Netns.call(network.namespace(name), () -> RtSwitch.fromTopology(topology, name, RtOptions.defaults()));
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
