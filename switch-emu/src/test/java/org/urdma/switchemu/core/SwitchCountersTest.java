package org.urdma.switchemu.core;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SwitchCountersTest {
    @Test
    void publishesPortCountersUnderReadableLabels() {
        SwitchConfig c = new SwitchConfig();
        c.port(new PortConfig());
        c.port(new PortConfig());
        SwitchCore core = new SwitchCore(c, (port, buffer, offset, length, start, end) -> { }, new SplittableRandom(1));
        CountersManager manager = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 1024)), new UnsafeBuffer(ByteBuffer.allocateDirect(256 * 1024)));
        try (SwitchCounters counters = new SwitchCounters("s1", core, manager)) {
            byte[] f = Frames.ethernet(0x02_00_00_00_00_02L, 0x02_00_00_00_00_01L, 3, 0x88B6, 100);
            core.onFrame(0, new UnsafeBuffer(f), 0, f.length, 0);
            core.onFrame(0, new UnsafeBuffer(new byte[5]), 0, 5, 0);
            core.poll(1_000);
            counters.publish();
            Map<String, Long> values = new HashMap<>();
            CountersReader reader = manager;
            reader.forEach((value, id, label) -> values.put(label, value));
            assertEquals(2L, values.get("s1 p0 rx-frames"));
            assertEquals(1L, values.get("s1 p0 drop-malformed"));
            assertEquals(1L, values.get("s1 p1 tx-frames"));
            assertEquals(100L, values.get("s1 p1 queue-high-water prio 3"));
        }
    }
}
