package org.urdma.switchemu.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RouteTableTest {
    private static final long BASE = 0x02_00_00_00_00_01L;

    @Test
    void macsInARowAndScatteredMacsFindTheirGroupsAlike() {
        RouteTable.Builder row = new RouteTable.Builder();
        RouteTable.Builder scattered = new RouteTable.Builder();
        for (int i = 0; i < 100; i++) {
            int[] ports = i % 3 == 0 ? new int[] {4, 5} : new int[] {i % 4};
            row.add(BASE + i, ports);
            scattered.add(BASE + i * 1_000_003L, ports);
        }
        RouteTable r = row.build();
        RouteTable s = scattered.build();
        for (int i = 0; i < 100; i++) {
            assertArrayEquals(s.ports(BASE + i * 1_000_003L), r.ports(BASE + i));
        }
        assertEquals(r.groups(), s.groups());
        assertEquals(RouteTable.NO_ROUTE, r.group(BASE - 1));
        assertEquals(RouteTable.NO_ROUTE, r.group(BASE + 100));
        assertEquals(RouteTable.NO_ROUTE, r.group(0xFF_FF_FF_FF_FF_FFL));
        assertEquals(RouteTable.NO_ROUTE, s.group(BASE + 1));
    }
}
