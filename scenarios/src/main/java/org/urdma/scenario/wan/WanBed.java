package org.urdma.scenario.wan;

import java.io.PrintStream;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.rt.RtOptions;
import org.urdma.switchemu.rt.RtSwitch;
import org.urdma.switchemu.rt.RtSwitchRunner;
import org.urdma.switchemu.topo.TopologyParser;

/**
 * The namespaces of the WAN scenario (root): h1 and h2, each joined by a veth to the switch namespace, where this
 * process runs the real-time switch on AF_PACKET ports, restarted per cell with that cell's rate, delay and loss.
 * Names are unique per run ({@link Topology}: random prefix) and everything goes with {@link #close()} (or, as a last
 * resort, the JVM's shutdown hook).
 */
final class WanBed implements AutoCloseable {
    private final Topology net;
    private final NetworkBuilder.Network network;

    private WanBed(Topology net, NetworkBuilder.Network network) {
        this.net = net;
        this.network = network;
    }

    /**
     * The switch thread's nice value: above the hosts' JVMs, so on a machine with fewer cores than busy threads the
     * switch is not the one that waits (a stalled switch holds frames it then admits at once, past PFC's headroom).
     * Measured at 1 Gbit/s x 20 ms: frames released late by 75 us on average (12 ms at worst) at nice 0, 12 us at -15.
     */
    static final int SWITCH_NICE = -15;

    /**
     * The switch sleeps until this long before its next deadline (RtOptions' 50 us default spins through a 1 Gbit/s
     * stream of 4 KiB frames, one per 33 us, and takes a core the two hosts' engines then share). A late release only
     * shifts a frame's delay: the bottleneck's serialization is timed in the core, back to back.
     */
    static final long SWITCH_SPIN_NS = 10_000;

    static WanBed create(PrintStream out) {
        Topology net = Topology.create();
        try {
            org.urdma.switchemu.topo.Topology t = TopologyParser.parse(new WanPath(1, 0, 0).topologyYaml(), "wan scenario");
            NetworkBuilder.Network network = NetworkBuilder.build(t, net, ns -> { });
            for (String host : new String[] {"h1", "h2"}) {
                // per namespace: socket buffers that can hold a bandwidth-delay product at 80 ms and more
                Netns.exec(network.namespace(host), "sysctl", "-q", "-w", "net.ipv4.tcp_rmem=4096 131072 67108864",
                    "net.ipv4.tcp_wmem=4096 65536 67108864", "net.ipv4.tcp_no_metrics_save=1");
            }
            out.println("namespaces: " + String.join(" ", network.namespaces().values()) + " (veth MTU " + WanPath.MTU + ")");
            return new WanBed(net, network);
        } catch (RuntimeException e) {
            net.close();
            throw e;
        }
    }

    String namespace(String node) {
        return network.namespace(node);
    }

    /** Starts the switch of {@code path} in the switch namespace; close the runner to stop it. */
    RtSwitchRunner startSwitch(WanPath path, long seed) throws Exception {
        org.urdma.switchemu.topo.Topology t = TopologyParser.parse(path.topologyYaml(), "wan scenario");
        RtOptions options = RtOptions.defaults().spinWindowNs(SWITCH_SPIN_NS).seed(seed).delayLineBytes(path.delayLineBytes())
            .rxRingBytes(32 << 20).nice(SWITCH_NICE);
        RtSwitch sw = Netns.call(network.namespace("s1"), () -> RtSwitch.fromTopology(t, "s1", options));
        return RtSwitchRunner.start(sw);
    }

    @Override
    public void close() {
        net.close();
    }
}
