package org.urdma.cli.devinfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.urdma.cli.CliRun;

/** {@code urdma devinfo} reads like {@code ibv_devinfo -v}: device, limits, port state, MTUs and the GID table. */
class DevinfoCommandTest {
    private static void has(String out, String field, String value) {
        assertTrue(Pattern.compile("(?m)^\\t+" + Pattern.quote(field) + "\\s+" + Pattern.quote(value) + "$").matcher(out).find(),
                field + " " + value + " in:\n" + out);
    }

    @Test
    void theMemoryLinksTwoDevicesShowPortsLimitsAndGids() {
        CliRun r = CliRun.run("devinfo");
        assertEquals(0, r.exit(), r.err());
        String out = r.out();
        assertTrue(out.startsWith("hca_id:\turdma0\n"), out);
        assertTrue(out.contains("\nhca_id:\turdma1\n"), out);
        has(out, "transport:", "InfiniBand (0)");
        has(out, "node_guid:", "0000:00ff:fe00:0001");
        has(out, "phys_port_cnt:", "1");
        has(out, "max_qp:", "1024");
        has(out, "max_qp_wr:", "16384");
        has(out, "max_cqe:", "65536");
        has(out, "max_mr:", "65536");
        has(out, "max_qp_rd_atom:", "16");
        has(out, "max_mw:", "65536");
        has(out, "device_cap_flags:", "0x01021000");
        assertTrue(out.contains("\n\t\t\t\t\tMEM_WINDOW\n\t\t\t\t\tMEM_WINDOW_TYPE_2B\n"), "rxe's window flags: " + out);
        has(out, "urdma_framing:", "roce2");
        assertTrue(out.contains("\t\tport:\t1\n"), out);
        has(out, "state:", "PORT_ACTIVE (4)");
        has(out, "max_mtu:", "4096 (5)");
        has(out, "active_mtu:", "4096 (5)");
        has(out, "link_layer:", "Ethernet");
        has(out, "GID[  0]:", "fe80:0000:0000:0000:0000:00ff:fe00:0001, RoCE v1");
    }

    @Test
    void anInterfaceShowsItsStateMtuAndTheRoceV2Gid() {
        CliRun r = CliRun.run("devinfo", "--link", "afpacket:lo", "--ip", "10.9.9.9/24", "--mac", "02:00:00:00:00:07");
        assertEquals(0, r.exit(), r.err());
        has(r.out(), "state:", "PORT_ACTIVE (4)");
        has(r.out(), "active_mtu:", "4096 (5)"); // lo's MTU is 64 KiB
        has(r.out(), "gid_tbl_len:", "2");
        assertTrue(r.out().contains("GID[  1]:") && r.out().contains("RoCE v2 (10.9.9.9)"), r.out());
        assertTrue(r.out().contains("AF_PACKET lo, interface MTU"), r.out());
    }

    @Test
    void aTapNotYetMadeIsDownAndAnUnknownInterfaceIsOneLine() {
        CliRun tap = CliRun.run("devinfo", "--link", "tap:urdmanone0");
        assertEquals(0, tap.exit(), tap.err());
        has(tap.out(), "state:", "PORT_DOWN (1)");
        CliRun bad = CliRun.run("devinfo", "--link", "afpacket:nosuch-if0");
        assertNotEquals(0, bad.exit());
        assertEquals(1, bad.err().lines().count(), bad.err());
        assertTrue(bad.err().contains("--link") && bad.err().contains("nosuch-if0"), bad.err());
    }
}
