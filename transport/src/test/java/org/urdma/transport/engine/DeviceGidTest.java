package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.port.PortIdentity;
import org.urdma.verbs.Gid;

/** A device answers ibv_query_gid from its port's GID table; a port-less (in-memory) link has only index 0. */
class DeviceGidTest {
    private static final byte[] MAC = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};

    /** A link with an addressed port and nothing on the wire. */
    private record PortLink(GidTable gids) implements Link {
        public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
            return null;
        }

        public void commit(TxPacket packet, Route route, long now) {
        }

        public int receive(long now, PacketSink sink, int limit) {
            return 0;
        }

        public int maxPayload() {
            return 4096;
        }

        @Override
        public Gid gid(int index) {
            return gids.gid(index);
        }
    }

    @Test
    void gidsComeFromThePortsTable() {
        GidTable table = new GidTable(PortIdentity.of(MAC, "10.9.8.7/24"));
        SoftDevice d = new SoftDevice(DeviceConfig.named("gid0", 1), new PortLink(table), new SplittableRandom(1), 0);
        assertEquals(table.gid(GidTable.ROCE_V1_INDEX), d.gid(0));
        assertEquals(Gid.fromIpv4(new byte[] {10, 9, 8, 7}), d.gid(1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.gid(2));
        assertTrue(e.getMessage().contains("gid index"), e.getMessage());
    }

    @Test
    void aPortlessLinkHasOnlyIndexZero() {
        SoftDevice d = new SoftDevice(DeviceConfig.named("gid1", 2), new SilentLink(), new SplittableRandom(1), 0);
        assertNotNull(d.gid(0));
        assertThrows(IllegalArgumentException.class, () -> d.gid(1));
    }
}
