package org.urdma.scenario.world;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.engine.DeviceConfig;

/**
 * A topology built in a simulated world: each switch a {@code SwitchCore} with the file's settings (routes included),
 * each host a urdma device on its link, each link with its rate, delay, impairment and PSN drops.
 */
public final class TopologyWorld {
    private final Map<String, SwitchNode> switches = new LinkedHashMap<>();
    private final Map<String, DeviceHost> hosts = new LinkedHashMap<>();

    /** Builds {@code t} in {@code w}; {@code device} gives each host's device configuration. */
    public TopologyWorld(World w, Topology t, Function<Topology.Host, DeviceConfig> device) {
        this(w, t, device, 4096);
    }

    /** As above, the devices' largest payload {@code maxPayload} (it sizes their transmit FIFO: 16 such frames). */
    public TopologyWorld(World w, Topology t, Function<Topology.Host, DeviceConfig> device, int maxPayload) {
        this(w, t, device, maxPayload, false);
    }

    /**
     * As above; {@code stampInt}: every switch port stamps in-band telemetry whatever the topology says, for a rate
     * control that reads it (HPCC), as HPCC's simulator turns INT on in every switch for its CC mode.
     */
    public TopologyWorld(World w, Topology t, Function<Topology.Host, DeviceConfig> device, int maxPayload, boolean stampInt) {
        for (Topology.Switch s : t.switches().values()) {
            SwitchConfig config = t.switchConfig(s.name()).packetMemoryOnDemand(true);
            if (stampInt) config.ports().forEach(p -> p.intStamp(true));
            switches.put(s.name(), w.addSwitch(s.name(), config));
        }
        for (Topology.Host h : t.hosts().values()) hosts.put(h.name(), w.addDevice(device.apply(h), maxPayload, h.priority()));
        Map<String, Map<Topology.Link, Integer>> ports = new LinkedHashMap<>();
        for (String s : switches.keySet()) {
            Map<Topology.Link, Integer> m = new java.util.IdentityHashMap<>();
            for (Topology.Port p : t.ports(s)) m.put(p.link(), p.port());
            ports.put(s, m);
        }
        for (Topology.Link l : t.links()) {
            SwitchNode sa = switches.get(l.a());
            SwitchNode sb = switches.get(l.b());
            if (sa != null && sb != null) {
                w.connect(sa, ports.get(l.a()).get(l), sb, ports.get(l.b()).get(l), l.rateBps(), l.delayNs(), l.aToB(), l.bToA());
            } else if (sa != null) {
                w.connect(hosts.get(l.b()), sa, ports.get(l.a()).get(l), l.rateBps(), l.delayNs(), l.bToA(), l.aToB());
            } else {
                w.connect(hosts.get(l.a()), sb, ports.get(l.b()).get(l), l.rateBps(), l.delayNs(), l.aToB(), l.bToA());
            }
            if (l.dropPsns() != null) {
                SwitchNode s = sa != null ? sa : sb;
                w.dropPsns(s, ports.get(s.name()).get(l), l.dropPsns());
            }
        }
    }

    /** A host's device MAC as the engine wants it. */
    public static byte[] mac(Topology.Host h) {
        byte[] mac = new byte[6];
        for (int i = 0; i < 6; i++) mac[i] = (byte) (h.mac() >>> (40 - 8 * i));
        return mac;
    }

    public Map<String, SwitchNode> switches() {
        return switches;
    }

    public Map<String, DeviceHost> hosts() {
        return hosts;
    }
}
