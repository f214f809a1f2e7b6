package org.urdma.scenario.world;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.FlowResult;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.switchemu.world.telemetry.FabricTelemetry;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * A simulated world built from a topology file: each switch a {@code SwitchCore} with the file's settings, each host
 * a urdma device (the real engine) on its link, links with their rate, delay and impairment, and the file's
 * {@code workloads:} run as {@link MessageWorkload}s. The results hold only simulated quantities, so the same file
 * and seed give the same text, byte for byte.
 */
public final class TopologyRun {
    private static final long START = 1_000_000;

    private TopologyRun() {
    }

    /** The results table and the fabric telemetry's files (name to contents, see {@link FabricTelemetry}). */
    public record Result(ResultTable table, Map<String, String> telemetry) {
    }

    /** Runs {@code t}'s workloads until they are all done or {@code untilNs} of simulated time passed. */
    public static ResultTable run(Topology t, long seed, long untilNs) {
        return run(t, seed, untilNs, FabricTelemetry.Options.defaults()).table();
    }

    /** As {@link #run(Topology, long, long)}, with the fabric's telemetry sampled as {@code telemetry} says. */
    public static Result run(Topology t, long seed, long untilNs, FabricTelemetry.Options telemetry) {
        if (t.workloads().isEmpty()) {
            throw new IllegalArgumentException(t.source() + ": no workloads: add a workloads: list (urdma devices on hosts)");
        }
        try (World w = new World(seed, START)) {
            boolean stampInt = t.workloads().stream().anyMatch(x -> RateControl.named(x.cc()).create().wantsTelemetry());
            TopologyWorld tw = new TopologyWorld(w, t, h -> new DeviceConfig(h.name(), TopologyWorld.mac(h), 1024, 16384, 16,
                    65536, 65536, 16, 256, 512, 64, LossRecovery.goBackN()), 4096, stampInt);
            Map<String, SwitchNode> switches = tw.switches();
            Map<String, DeviceHost> hosts = tw.hosts();
            FabricTelemetry fabric = new FabricTelemetry(w, switches, START, telemetry);
            List<MessageWorkload> ms = new ArrayList<>();
            long seq = 0;
            for (Topology.Workload x : t.workloads()) {
                MessageWorkload m = new MessageWorkload(w, x.name(), hosts.get(x.from()), hosts.get(x.to()),
                        MessageWorkload.Op.named(x.kind()), x.qp().equals("uc") ? QpType.UC : QpType.RC, x.size(),
                        x.depth(), x.messages(), x.stopNs() == Long.MAX_VALUE ? Long.MAX_VALUE : START + x.stopNs(),
                        LossRecovery.named(x.reliability()), RateControl.named(x.cc()),
                        MemoryFabric.Connection.defaults().withMtu(PathMtu.ofBytes(x.mtu())), seed + 1000 * ++seq);
                w.add(hosts.get(x.from()), m, START + x.startNs());
                ms.add(m);
            }
            boolean done = w.runUntilFinished(START + untilNs);
            ResultTable r = new ResultTable(String.format(Locale.ROOT, "%s, seed %d: %s at %.6f ms simulated", t.source(),
                    seed, done ? "all workloads done" : "stopped", (w.now() - START) / 1e6),
                    "workload", "from", "to", "kind", "policies", "messages", "bytes", "goodput_gbps", "retransmitted",
                    "errors", "verified");
            for (MessageWorkload m : ms) {
                FlowResult f = m.result();
                r.row(f.name(), f.from(), f.to(), f.op(), f.policies(), f.messages(), f.bytes(),
                        String.format(Locale.ROOT, "%.4f", f.goodputGbps()), f.retransmitted(), f.errors(),
                        f.memoryVerified() == null ? "-" : f.memoryVerified() ? "yes" : "NO");
            }
            for (Map.Entry<String, SwitchNode> e : switches.entrySet()) {
                long drops = 0;
                long pfc = 0;
                long marked = 0;
                long tx = 0;
                for (int p = 0; p < e.getValue().core().portCount(); p++) {
                    PortCounters c = e.getValue().core().counters(p);
                    drops += c.totalDrops();
                    pfc += c.pfcFramesTx;
                    marked += c.ecnMarked;
                    tx += c.txFrames;
                }
                r.note(String.format(Locale.ROOT, "switch %s: %d frames sent, %d dropped, %d PFC frames sent, %d ECN-marked",
                        e.getKey(), tx, drops, pfc, marked));
            }
            r.note(String.format(Locale.ROOT, "%d events, %d frames lost to impairment, %d to PSN drop patterns", w.events(),
                    w.impairmentLost(), w.psnDropped()));
            List<FabricTelemetry.FlowEcn> ecn = new ArrayList<>();
            for (MessageWorkload m : ms) {
                QpCounters sender = ((SoftQp) m.qp()).counters();
                QpCounters receiver = ((SoftQp) m.peer()).counters();
                FlowResult f = m.result();
                ecn.add(new FabricTelemetry.FlowEcn(f.name(), f.from(), f.to(), receiver.get(Counter.ECN_CE_RCVD),
                        receiver.get(Counter.CNP_SENT), sender.get(Counter.CNP_HANDLED)));
            }
            return new Result(r, fabric.files(w.now(), ecn));
        }
    }
}
