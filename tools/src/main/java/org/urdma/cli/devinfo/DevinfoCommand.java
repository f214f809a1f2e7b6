package org.urdma.cli.devinfo;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.urdma.cli.LinkSpec;
import org.urdma.nativeio.NetInterface;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.DeviceLimits;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.Device;
import org.urdma.verbs.DeviceAttributes;
import org.urdma.verbs.Gid;
import org.urdma.verbs.PathMtu;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urdma devinfo}: the device a command would open, in the shape of {@code ibv_devinfo -v} (rdma-core's
 * devinfo.c), plus urdma's link and framing. Over an interface it only looks (no socket, no TAP made), so it needs no root.
 */
@Command(name = "devinfo", mixinStandardHelpOptions = true,
        description = "Show the urdma device on a link as ibv_devinfo -v shows an RDMA device: ports, state, MTUs, GID table, limits.")
public final class DevinfoCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--link", converter = LinkSpec.class, description = "memory (the two devices of the in-memory link, as "
            + "urdma perf uses), afpacket:IF or tap:IF (default: ${DEFAULT-VALUE})")
    String link = "memory";

    @Option(names = "--ip", paramLabel = "A.B.C.D/NN", description = "The port's own IPv4 address (adds the RoCEv2 GID)")
    String ip;

    @Option(names = "--mac", description = "The port's MAC (default: the interface's for afpacket, a fixed local one for tap)")
    String mac;

    @Option(names = "--framing", description = "Wire format: roce1, roce2, paxi-standard, … (default: ${DEFAULT-VALUE})")
    String framing = "roce2";

    @Option(names = {"-v", "--verbose"}, description = "Accepted for ibv_devinfo compatibility: the limits are always shown")
    boolean verbose;

    /** What a port looks like to devinfo. */
    record Port(String state, int stateCode, String physState, int physCode, int interfaceMtu, PathMtu activeMtu, Gid[] gids,
                String linkText) {
    }

    @Override
    public Integer call() {
        FramingKind kind = FramingKind.parse(framing);
        PrintWriter out = spec.commandLine().getOut();
        if (link.equals("memory")) {
            if (ip != null || mac != null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        (ip != null ? "--ip" : "--mac") + ": applies to --link afpacket:IF or tap:IF, not the memory link");
            }
            MemoryFabric f = new MemoryFabric(DeviceConfig.named("urdma0", 1), DeviceConfig.named("urdma1", 2),
                    MemoryLink.Config.defaults(), MemoryFabric.CodecFactory.wire(kind), ImpairmentConfig.none(), ImpairmentConfig.none(), 1, 0);
            for (Device d : new Device[] {f.a, f.b}) {
                Port p = new Port("PORT_ACTIVE", 4, "LINK_UP", 5, 0, PathMtu.ofBytes(MemoryLink.Config.defaults().maxPayload()),
                        new Gid[] {d.gid(0)}, "memory (joined to " + (d == f.a ? f.b : f.a).name() + " in this process)");
                print(out, d.name(), d.mac(), d.attributes(), p, kind);
            }
            out.flush();
            return 0;
        }
        String ifname = link.substring(link.indexOf(':') + 1);
        boolean tap = link.startsWith("tap:");
        NetInterface nif = null;
        try {
            nif = NetInterface.lookup(ifname);
        } catch (org.urdma.nativeio.NativeException e) {
            if (!tap) throw e; // a TAP is made when a command opens it
        }
        byte[] m = mac != null ? PortIdentity.parseMac(mac) : tap || nif == null ? PortIdentity.parseMac("02:75:72:64:6d:61") : nif.mac();
        PortIdentity id = ip != null ? PortIdentity.of(m, ip) : PortIdentity.ofMac(m);
        GidTable table = new GidTable(id);
        Gid[] gids = new Gid[table.size()];
        for (int i = 0; i < gids.length; i++) gids[i] = table.gid(i);
        boolean running = nif != null && nif.isUp() && nif.isRunning();
        int ifMtu = nif != null ? nif.mtu() : 1500;
        Port p = new Port(running ? "PORT_ACTIVE" : "PORT_DOWN", running ? 4 : 1, running ? "LINK_UP" : "DISABLED", running ? 5 : 3,
                ifMtu, activeMtu(kind, m, gids[gids.length - 1], ifMtu),
                gids, (tap ? "TAP " : "AF_PACKET ") + ifname + (nif == null ? " (not created yet: urdma makes it when a command opens it)"
                        : ", interface MTU " + ifMtu + (nif.isUp() ? "" : ", interface down")));
        // the limits urdma perf and pingpong give a device on a real link
        DeviceConfig c = new DeviceConfig("urdma0", m, 64, 4096, 16, 8192, 1024, 16, 256, 512, 64,
                org.urdma.transport.recovery.LossRecovery.goBackN());
        DeviceAttributes a = new DeviceAttributes(c.maxQp(), c.maxQpWr(), c.maxSge(), c.maxCqe(), c.maxMr(), Integer.MAX_VALUE,
                c.maxRdAtomic(), c.maxRdAtomic(), 1024, c.maxQpWr(), c.maxInline(), c.maxMr(), DeviceLimits.CAP_FLAGS);
        print(out, "urdma0", m, a, p, kind);
        out.flush();
        return 0;
    }

    /** The largest path MTU whose full frame fits the interface MTU (the Ethernet header is not part of it), as rxe picks it. */
    static PathMtu activeMtu(FramingKind kind, byte[] mac, Gid gid, int ifMtu) {
        LinkFraming codec = new LinkFraming(kind, mac, gid.toBytes());
        for (int bytes = 4096; bytes >= 256; bytes >>= 1) {
            if (codec.maxFrameLength(bytes) - 14 <= ifMtu) return PathMtu.ofBytes(bytes);
        }
        return PathMtu.MTU_256;
    }

    private static String guid(byte[] mac) {
        // the EUI-64 of the MAC, as rxe's node_guid
        long g = (long) ((mac[0] ^ 0x02) & 0xff) << 56 | (long) (mac[1] & 0xff) << 48 | (long) (mac[2] & 0xff) << 40 | 0xffL << 32
                | 0xfeL << 24 | (long) (mac[3] & 0xff) << 16 | (long) (mac[4] & 0xff) << 8 | (mac[5] & 0xff);
        return String.format("%04x:%04x:%04x:%04x", g >>> 48 & 0xffff, g >>> 32 & 0xffff, g >>> 16 & 0xffff, g & 0xffff);
    }

    private static int code(PathMtu m) {
        return Integer.numberOfTrailingZeros(m.bytes()) - 7; // IBV_MTU_256 = 1 … IBV_MTU_4096 = 5
    }

    private static void print(PrintWriter out, String name, byte[] mac, DeviceAttributes a, Port p, FramingKind kind) {
        String f = "\t%-32s%s%n";
        out.printf("hca_id:\t%s%n", name);
        out.printf(f, "transport:", "InfiniBand (0)");
        out.printf(f, "fw_ver:", "0.0.0");
        out.printf(f, "node_guid:", guid(mac));
        out.printf(f, "sys_image_guid:", "0000:0000:0000:0000");
        out.printf(f, "vendor_id:", "0x0000");
        out.printf(f, "vendor_part_id:", "0");
        out.printf(f, "hw_ver:", "0x0");
        out.printf(f, "phys_port_cnt:", "1");
        out.printf(f, "max_mr_size:", String.format("0x%x", a.maxMrSize()));
        out.printf(f, "page_size_cap:", "0xfffff000");
        out.printf(f, "max_qp:", a.maxQp());
        out.printf(f, "max_qp_wr:", a.maxQpWr());
        out.printf(f, "device_cap_flags:", String.format("0x%08x", a.deviceCapFlags()));
        for (String flag : DeviceAttributes.capFlagNames(a.deviceCapFlags())) out.printf("\t\t\t\t\t%s%n", flag);
        out.printf(f, "max_sge:", a.maxSge());
        out.printf(f, "max_sge_rd:", a.maxSge());
        out.printf(f, "max_cq:", "2147483647 (not limited)");
        out.printf(f, "max_cqe:", a.maxCqe());
        out.printf(f, "max_mr:", a.maxMr());
        out.printf(f, "max_pd:", "2147483647 (not limited)");
        out.printf(f, "max_qp_rd_atom:", a.maxQpRdAtom());
        out.printf(f, "max_qp_init_rd_atom:", a.maxQpInitRdAtom());
        out.printf(f, "atomic_cap:", "ATOMIC_HCA (1)");
        out.printf(f, "max_mw:", a.maxMw());
        out.printf(f, "max_srq:", a.maxSrq());
        out.printf(f, "max_srq_wr:", a.maxSrqWr());
        out.printf(f, "max_srq_sge:", a.maxSge());
        out.printf(f, "max_inline_data:", a.maxInlineData());
        out.printf(f, "max_pkeys:", "1");
        out.printf(f, "urdma_link:", p.linkText());
        out.printf(f, "urdma_framing:", kind.cliName());
        out.printf("\t\tport:\t1%n");
        String pf = "\t\t\t%-24s%s%n";
        out.printf(pf, "state:", p.state() + " (" + p.stateCode() + ")");
        out.printf(pf, "max_mtu:", "4096 (5)");
        out.printf(pf, "active_mtu:", p.activeMtu().bytes() + " (" + code(p.activeMtu()) + ")");
        out.printf(pf, "sm_lid:", "0");
        out.printf(pf, "port_lid:", "0");
        out.printf(pf, "port_lmc:", "0x00");
        out.printf(pf, "link_layer:", "Ethernet");
        out.printf(pf, "max_msg_sz:", "0x80000000");
        out.printf(pf, "max_vl_num:", "1 (1)");
        out.printf(pf, "gid_tbl_len:", p.gids().length);
        out.printf(pf, "phys_state:", p.physState() + " (" + p.physCode() + ")");
        for (int i = 0; i < p.gids().length; i++) {
            Gid g = p.gids()[i];
            out.printf(pf, String.format(Locale.ROOT, "GID[%3d]:", i), g + (GidTable.isIpv4Mapped(g)
                    ? ", RoCE v2 (" + PortIdentity.ipv4String(GidTable.ipv4Of(g)) + ")" : ", RoCE v1"));
        }
        out.println();
    }
}
