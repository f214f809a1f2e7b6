package org.urdma.switchemu.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.sim.Flow;
import org.urdma.switchemu.sim.SimHost;
import org.urdma.switchemu.sim.SimLink;
import org.urdma.switchemu.sim.SimSwitch;
import org.urdma.switchemu.sim.Simulator;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.wire.MacControlFrame;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SwitchCaptureTest {
    @TempDir
    Path dir;

    @Test
    void eachPortFileHoldsWhatItReceivedAndSentIncludingPfc() throws Exception {
        Simulator sim = new Simulator();
        SwitchConfig c = new SwitchConfig().bufferBytes(100_000).reserveBytes(1_000);
        for (int i = 0; i < 3; i++) {
            c.port(new PortConfig().mac(0x02_5E_00_00_00_00L + i).rateBps(10_000_000_000L).pfcMask(0x08).headroomBytes(20_000));
        }
        SimSwitch sw = new SimSwitch(sim, "s1", c, 1);
        SimHost[] h = new SimHost[3];
        for (int i = 0; i < 3; i++) {
            h[i] = new SimHost(sim, "h" + i, 0x02_00_00_00_00_01L + i);
            SimLink l = new SimLink(sim, h[i], 0, sw, i, 10_000_000_000L, 500);
            h[i].attach(l);
            sw.attach(i, l);
        }
        sw.core().addStaticMac(h[2].mac(), 2);
        try (SwitchCapture capture = new SwitchCapture(dir, "s1", 3, 0)) {
            sw.capture(capture);
            h[0].send(new Flow(1, h[2].mac(), 3, 1000, 500));
            h[1].send(new Flow(2, h[2].mac(), 3, 1000, 500));
            sim.runToIdle(1_000_000_000L);
        }
        int[] data = new int[3];
        int[] pfc = new int[3];
        long lastTime = -1;
        boolean ordered = true;
        for (int p = 0; p < 3; p++) {
            try (PcapReader r = new PcapReader(SwitchCapture.file(dir, "s1", p))) {
                lastTime = -1;
                while (r.next()) {
                    if (MacControlFrame.isPfc(r.buffer(), 0, r.capturedLength())) {
                        pfc[p]++;
                    } else {
                        data[p]++;
                    }
                    ordered &= r.timestampNanos() >= lastTime || p != 2;
                    lastTime = r.timestampNanos();
                }
            }
        }
        assertEquals(500, data[0]);
        assertEquals(500, data[1]);
        assertEquals(1000, data[2], "port 2 sent both flows");
        assertEquals(sw.core().counters(0).pfcTx[3], pfc[0], "PFC the switch sent towards h0");
        assertTrue(pfc[0] > 0);
        assertTrue(ordered, "egress-only port file is in time order");
    }
}
