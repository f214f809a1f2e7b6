package org.urdma.switchemu.rt;

import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

/**
 * A topology's network in fresh, uniquely named namespaces with the real-time switch running in-process and no
 * test sockets on the hosts (urdma devices open their own). Closing stops the switch and removes every namespace.
 */
final class UrdmaFabric implements AutoCloseable {
    final Topology topology;
    final org.urdma.nativeio.netns.Topology net;
    final NetworkBuilder.Network network;
    RtSwitchRunner runner;

    UrdmaFabric(String yaml, String switchName) throws Exception {
        this.topology = TopologyParser.parse(yaml, "test topology");
        this.net = org.urdma.nativeio.netns.Topology.create();
        boolean ok = false;
        try {
            this.network = NetworkBuilder.build(topology, net, ns -> { });
            RtSwitch sw = Netns.call(network.namespace(switchName), () -> RtSwitch.fromTopology(topology, switchName, RtOptions.defaults()));
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
