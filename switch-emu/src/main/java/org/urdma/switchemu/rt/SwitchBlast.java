package org.urdma.switchemu.rt;

import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.RawBlast;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Forwarding rate of the real-time switch between two hosts in namespaces, beside {@link RawBlast} on a
 * plain veth pair in the same run (a benchmark, needs root):
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
 *     -cp CLASSPATH org.urdma.switchemu.rt.SwitchBlast FRAMES SIZE MTU [SPIN|BACKOFF] [V2|V3] [RX_RING_MB]
 * </pre>
 * The switch has PFC (priority 3, the default priority of every port here), ECN and the Dynamic Threshold
 * MMU on; links are 100 Gbit/s so that the switch's serialization model does not cap the rate.
 */
public final class SwitchBlast {
    private SwitchBlast() {
    }

    public static void main(String[] args) throws Exception {
        long frames = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int mtu = args.length > 2 ? Integer.parseInt(args[2]) : 1500;
        int ringMb = args.length > 5 ? Integer.parseInt(args[5]) : 64;
        RtOptions.Idle idle = args.length > 3 ? RtOptions.Idle.valueOf(args[3].toUpperCase(Locale.ROOT)) : RtOptions.Idle.SPIN;
        AfPacketOptions.Version rx = args.length > 4 ? AfPacketOptions.Version.valueOf(args[4].toUpperCase(Locale.ROOT))
            : AfPacketOptions.Version.V2;
        System.out.println("== raw AF_PACKET blast on a plain veth pair");
        RawBlast.vethRun(frames, size, mtu, false);
        System.out.println("== through the real-time switch (" + idle + ", RX ring " + rx + ", " + ringMb + " MB per port)");
        switchRun(frames, size, mtu, RtOptions.defaults().idle(idle).rxVersion(rx).rxRingBytes(ringMb << 20).txBatch(64));
    }

    static void switchRun(long frames, int size, int mtu, RtOptions options) throws Exception {
        String yaml = """
            hosts:
              - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
              - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
            switches:
              - name: s1
                buffer: 4MB
                pfc: [3]
                defaultPriority: 3
                classify: default
                ecn: {priorities: [3], kmin: 100KB, kmax: 1MB, pmax: 1%%}
            links:
              - {endpoints: [h1, s1], rate: 100G, mtu: %d}
              - {endpoints: [s1, h2], rate: 100G, mtu: %d}
            """.formatted(mtu, mtu);
        Topology topology = TopologyParser.parse(yaml, "SwitchBlast");
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(topology, net, ns -> { });
            AfPacketOptions rxOpts = AfPacketOptions.forMtu(mtu).protocol(RawBlast.ETHERTYPE).noTxRing()
                .rxRing(1 << 20, 64, 2048, 1);
            AfPacketOptions txOpts = AfPacketOptions.forMtu(mtu).protocol(0).noRxRing().sendBuffer(16 << 20);
            AfPacketOptions txSized = txOpts.txRing(align16(mtu + 18 + 64), Math.max(512, (32 << 20) / (mtu + 82)));
            AfPacketSocket rxs = Netns.call(n.namespace("h2"), () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, rxOpts));
            AfPacketSocket txs = Netns.call(n.namespace("h1"), () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, txSized));
            RtSwitch sw = Netns.call(n.namespace("s1"), () -> RtSwitch.fromTopology(topology, "s1", options));
            byte[] h1 = {2, 0, 0, 0, 0, 1};
            byte[] h2 = {2, 0, 0, 0, 0, 2};
            try (rxs; txs; RtSwitchRunner runner = RtSwitchRunner.start(sw)) {
                // h2 speaks once so the switch forwards to its port instead of flooding
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment hello = a.allocate(60);
                    MemorySegment.copy(new byte[]{-1, -1, -1, -1, -1, -1, 2, 0, 0, 0, 0, 2, (byte) 0x88, (byte) 0xB6}, 0,
                        hello, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, 14);
                    rxs.send(hello, 60);
                }
                Thread.sleep(100);
                AtomicBoolean stop = new AtomicBoolean();
                CountDownLatch ready = new CountDownLatch(1);
                RawBlast.RxResult[] rr = new RawBlast.RxResult[1];
                Thread receiver = Thread.ofPlatform().name("blast-rx").start(() -> {
                    ready.countDown();
                    rr[0] = RawBlast.count(rxs, frames, stop, 3000);
                });
                ready.await();
                RawBlast.TxResult tr = RawBlast.blast(txs, h2, h1, frames, size);
                stop.set(true);
                receiver.join();
                runner.close();
                System.out.printf(Locale.ROOT, "frame %d B, mtu %d%n", size, mtu);
                System.out.printf(Locale.ROOT, "tx: %d frames in %.3f s = %.0f frames/s (%.2f Gbit/s)%n", tr.frames(),
                    tr.nanos() / 1e9, tr.framesPerSecond(), tr.framesPerSecond() * size * 8 / 1e9);
                System.out.printf(Locale.ROOT, "rx through the switch: %d frames (%.2f %%) in %.3f s = %.0f frames/s (%.2f Gbit/s)%n",
                    rr[0].frames(), 100.0 * rr[0].frames() / tr.frames(), rr[0].nanos() / 1e9, rr[0].framesPerSecond(),
                    rr[0].gbitPerSecond());
                System.out.println("receiver socket: " + rr[0].stats());
                System.out.print(CounterReport.format(sw, "none"));
            }
        }
    }

    private static int align16(int x) {
        return (x + 15) & ~15;
    }
}
