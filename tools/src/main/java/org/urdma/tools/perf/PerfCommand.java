package org.urdma.tools.perf;

import picocli.CommandLine.Command;

/** {@code urdma perf …}: perftest-style benchmarks over urdma's verbs. */
@Command(name = "perf", mixinStandardHelpOptions = true,
        description = "perftest-style benchmarks (ib_write_bw, ib_send_lat, ...) over urdma verbs.",
        subcommands = {WriteBwCommand.class, PerfTestCommand.ReadBw.class, PerfTestCommand.SendBw.class,
                PerfTestCommand.AtomicBw.class, PerfTestCommand.WriteLat.class, PerfTestCommand.ReadLat.class,
                SendLatCommand.class, PerfTestCommand.AtomicLat.class})
public final class PerfCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static final String LINE = "---------------------------------------------------------------------------------------";

    static void header(java.io.PrintStream out, String title, PerfOptions o, PerfSession s) {
        out.println(LINE);
        out.printf("                    %s%n", title);
        out.printf(" Dual-port       : OFF\t\tDevice         : %s%n", s.deviceName());
        out.printf(" Number of qps   : %d\t\tTransport type : urdma (%s%s on %s link)%n", s.clients.length, o.framing,
                o.framing.startsWith("paxi") && !o.paxiIcrc ? ", no ICRC" : "", o.link);
        out.printf(" Connection type : %s\t\tUsing SRQ      : OFF%n", s.type);
        out.printf(" TX depth        : %d%n", o.txDepth);
        out.printf(" Mtu             : %d[B]%n", o.mtu);
        out.printf(" Link type       : Ethernet%n");
        out.printf(" Max inline data : 0[B]%n");
        // the memory link offloads the ICRC as a NIC would, unless it corrupts frames or captures them
        String icrc = s.fabric.linkA.icrcOffloaded() ? "offloaded (in-memory link: no corruption, no capture)"
                : org.urdma.transport.wire.Icrc.implementation();
        out.printf(" ICRC            : %s\t\tNetty transport: %s%n", icrc, org.urdma.transport.cm.ConnectionManager.nettyTransport());
        out.printf(" Driver          : %s%s  Reliability: %s  Loss: %s%n", o.driver,
                o.driver.equals("agent") ? " (" + o.idle + ")" : "", org.urdma.transport.api.Stats.of(s.client).policyNames(), o.loss);
        if (o.wanOffer().on()) out.printf(" WAN mode        : %s%n", o.wanOffer().agree(o.wanOffer()));
        for (String line : s.telemetry.describe()) out.println(line);
        out.println(LINE);
        out.printf(" local address: QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%014x%n", s.client.qpNum(), 0x2c6fc0,
                s.bufA.rkey(), s.bufA.address());
        out.printf(" remote address: QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%014x%n", s.server.qpNum(), 0x1a2b3c,
                s.bufB.rkey(), s.bufB.address());
        out.println(LINE);
    }

}
