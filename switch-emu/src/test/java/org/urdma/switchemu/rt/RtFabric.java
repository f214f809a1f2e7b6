package org.urdma.switchemu.rt;

import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A topology's network in fresh, uniquely named namespaces, one real-time switch running in-process
 * (its sockets opened inside the switch namespace), and a {@link TestHost} per host. Closing stops the
 * switch and removes every namespace, also after a failure.
 */
final class RtFabric implements AutoCloseable {
    final Topology topology;
    final org.urdma.nativeio.netns.Topology net;
    final NetworkBuilder.Network network;
    final Map<String, TestHost> hosts = new LinkedHashMap<>();
    RtSwitchRunner runner;

    RtFabric(String yaml, String switchName, RtOptions options) throws Exception {
        this.topology = TopologyParser.parse(yaml, "test topology");
        this.net = org.urdma.nativeio.netns.Topology.create();
        boolean ok = false;
        try {
            this.network = NetworkBuilder.build(topology, net, ns -> { });
            for (Topology.Host h : topology.hosts().values()) {
                hosts.put(h.name(), new TestHost(h.name(), network.namespace(h.name()), h.mac()));
            }
            RtSwitch sw = Netns.call(network.namespace(switchName), () -> RtSwitch.fromTopology(topology, switchName, options));
            runner = RtSwitchRunner.start(sw);
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    TestHost host(String name) {
        return hosts.get(name);
    }

    RtSwitch sw() {
        return runner.sw();
    }

    /** Stops the switch (counters are stable afterwards). */
    void stopSwitch() {
        if (runner != null) {
            runner.close();
        }
    }

    @Override
    public void close() {
        try {
            stopSwitch();
            hosts.values().forEach(TestHost::close);
        } finally {
            net.close();
        }
    }
}
