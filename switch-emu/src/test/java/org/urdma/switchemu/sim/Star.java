package org.urdma.switchemu.sim;

import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;

import java.util.function.Consumer;

/** Test topology: n hosts on one switch, host i on port i, all links at one rate. */
final class Star {
    final Simulator sim = new Simulator();
    final SimSwitch sw;
    final SimHost[] hosts;
    final SimLink[] links;

    Star(int n, long rateBps, long propagationNs, Consumer<SwitchConfig> switchSetup, Consumer<PortConfig> portSetup,
         long seed) {
        SwitchConfig config = new SwitchConfig();
        for (int i = 0; i < n; i++) {
            PortConfig p = new PortConfig().mac(0x02_00_00_00_FF_00L + i).rateBps(rateBps);
            portSetup.accept(p);
            config.port(p);
        }
        switchSetup.accept(config);
        sw = new SimSwitch(sim, "sw", config, seed);
        hosts = new SimHost[n];
        links = new SimLink[n];
        for (int i = 0; i < n; i++) {
            hosts[i] = new SimHost(sim, "h" + i, mac(i));
            links[i] = new SimLink(sim, hosts[i], 0, sw, i, rateBps, propagationNs);
            hosts[i].attach(links[i]);
            sw.attach(i, links[i]);
        }
    }

    static long mac(int i) {
        return 0x02_00_00_00_00_10L + i;
    }
}
