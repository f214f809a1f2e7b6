package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.RxFrame;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.impair.Impairment;
import org.urdma.switchemu.impair.ImpairmentConfig;
import org.urdma.switchemu.topo.Topology;
import org.urdma.transport.pcap.PcapWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The real-time driver: one {@link SwitchCore} between AF_PACKET sockets, one per port, polled by a
 * single thread (an Agrona {@link Agent}). The driver owns the clock ({@link NanoClock}); the core only
 * sees {@code now}.
 *
 * <p>Each {@link #doWork()} pass: drain every RX ring (zero copy; the core copies the frame once into
 * its buffer), release impairment-delayed frames, {@code core.poll(now)} when a frame came in or the
 * core's deadline passed (serialization at the port rate, pipeline delay, PFC timers and refreshes,
 * the watchdog), and the core's transmissions are copied once from its output buffer into a TX ring
 * slot, flushed in batches. Nothing is allocated per frame.
 *
 * <p>VLAN: veth strips the 802.1Q tag into the RX metadata; the driver writes it back in front of the
 * EtherType inside the ring slot (the kernel leaves at least 14 spare bytes before the MAC header of a
 * V2/V3 slot), so classification by PCP works and the tag leaves with the frame.
 *
 * <p>Impairment per port and direction as in the simulator: ingress (frames from a host) before the
 * core, egress after serialization; frames with a later release time wait in a {@link ReleaseHeap}.
 */
public final class RtSwitch implements Agent {
    /** A port: the interface to open (in the calling thread's namespace), its peer, impairment in and out (or null). */
    public record PortSpec(String interfaceName, String peer, ImpairmentConfig ingress, ImpairmentConfig egress) {
    }

    private final String name;
    private final SwitchCore core;
    private final RtPort[] ports;
    private final RtOptions options;
    private final NanoClock clock;
    private final long epochOffsetNs;
    private final UnsafeBuffer scratch;
    private final int txBatch;
    private final long spinWindowNs;
    private long now;
    private long nextPoll = Long.MIN_VALUE;
    private long startNs;
    private long lastNs;
    private boolean closed;

    /** Opens the ports' sockets in the calling thread's network namespace. */
    public RtSwitch(String name, SwitchConfig config, List<PortSpec> specs, RtOptions options) {
        this(name, config, specs, options, new SystemNanoClock());
    }

    public RtSwitch(String name, SwitchConfig config, List<PortSpec> specs, RtOptions options, NanoClock clock) {
        if (specs.size() != config.ports().size()) {
            throw new IllegalArgumentException("ports: " + specs.size() + " interfaces given for a switch configured with "
                + config.ports().size() + " ports");
        }
        this.name = name;
        this.options = options;
        this.clock = clock;
        this.epochOffsetNs = System.currentTimeMillis() * 1_000_000L - clock.nanoTime();
        this.txBatch = options.txBatch;
        this.spinWindowNs = options.spinWindowNs;
        this.core = new SwitchCore(config, this::transmit, new SplittableRandom(options.seed));
        SplittableRandom seeds = new SplittableRandom(options.seed * 0x9E3779B97F4A7C15L + 1);
        List<RtPort> opened = new ArrayList<>();
        int maxFrame = 0;
        try {
            for (int i = 0; i < specs.size(); i++) {
                PortSpec s = specs.get(i);
                Impairment in = impairment(s.ingress(), seeds);
                Impairment out = impairment(s.egress(), seeds);
                AfPacketSocket socket = open(s.interfaceName(), options);
                PcapWriter pcap = null;
                try {
                    pcap = pcap(options.pcapDir, name, s.interfaceName());
                    RtPort p = new RtPort(i, s.interfaceName(), s.peer(), socket, in, out, options.delayLineBytes, pcap);
                    p.handler = f -> onReceive(p, f);
                    opened.add(p);
                    maxFrame = Math.max(maxFrame, socket.mtu() + 18);
                } catch (RuntimeException e) {
                    socket.close();
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            for (RtPort p : opened) {
                closePort(p);
            }
            throw e;
        }
        this.ports = opened.toArray(new RtPort[0]);
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(maxFrame, 9216) + 64));
    }

    /** A switch of a topology file, its ports named {@link #portInterface(int)} in the calling thread's namespace. */
    public static RtSwitch fromTopology(Topology topology, String switchName, RtOptions options) {
        SwitchConfig config = topology.switchConfig(switchName);
        List<PortSpec> specs = new ArrayList<>();
        for (Topology.Port p : topology.ports(switchName)) {
            Topology.Link l = p.link();
            boolean atA = l.a().equals(switchName);
            ImpairmentConfig out = atA ? l.aToB() : l.bToA();
            ImpairmentConfig in = atA ? l.bToA() : l.aToB();
            // as in the simulator: a direction is impaired once, at the switch it leaves, else the switch it enters
            if (topology.switches().containsKey(p.peer())) {
                in = null;
            }
            if (!options.impair) {
                in = null;
                out = null;
            }
            specs.add(new PortSpec(portInterface(p.port()), p.peer(), in, out));
        }
        return new RtSwitch(switchName, config, specs, options);
    }

    /** Interface name of a switch port inside its namespace ({@code urdma topo up} makes them). */
    public static String portInterface(int port) {
        return "p" + port;
    }

    private static Impairment impairment(ImpairmentConfig c, SplittableRandom seeds) {
        long seed = seeds.nextLong();
        return c == null || c.isNone() ? null : new Impairment(c, new SplittableRandom(seed));
    }

    private static AfPacketSocket open(String ifname, RtOptions o) {
        int mtu = NetInterface.lookup(ifname).mtu();
        AfPacketOptions opts = AfPacketOptions.forMtu(mtu);
        // V2 slot: 32-byte header, sockaddr_ll, padding to the MAC header (66 for Ethernet), the frame
        int frame = align16(mtu + 18 + 96);
        int block = 1 << 17;
        while (block < frame * 4) {
            block <<= 1;
        }
        int blocks = Math.max(2, o.rxRingBytes / block);
        opts.version(o.rxVersion).rxRing(block, blocks, frame, 1).promiscuous(true).qdiscBypass(true)
            .sendBuffer(16 << 20);
        opts.txRing(align16(mtu + 18 + 64), o.txSlots);
        return AfPacketSocket.open(ifname, opts);
    }

    private static int align16(int x) {
        return (x + 15) & ~15;
    }

    private static PcapWriter pcap(Path dir, String switchName, String ifname) {
        if (dir == null) {
            return null;
        }
        try {
            Files.createDirectories(dir);
            return new PcapWriter(dir.resolve(switchName + "-" + ifname + ".pcap"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pcap in " + dir, e);
        }
    }

    public String name() {
        return name;
    }

    public SwitchCore core() {
        return core;
    }

    public int portCount() {
        return ports.length;
    }

    public RtPort port(int i) {
        return ports[i];
    }

    public RtOptions options() {
        return options;
    }

    /** Nanoseconds the driver has been running (first to last pass). */
    public long runNanos() {
        return lastNs - startNs;
    }

    @Override
    public String roleName() {
        return "switch-" + name;
    }

    @Override
    public void onStart() {
        startNs = clock.nanoTime();
        lastNs = startNs;
    }

    @Override
    public int doWork() {
        now = clock.nanoTime();
        int work = 0;
        for (RtPort p : ports) {
            work += p.socket.receive(p.handler);
        }
        for (RtPort p : ports) {
            if (p.ingressLine != null && p.ingressLine.nextRelease() <= now) {
                work += releaseIngress(p);
            }
        }
        if (work > 0 || now >= nextPoll) {
            nextPoll = core.poll(now);
        }
        long next = nextPoll;
        for (RtPort p : ports) {
            if (p.egressLine != null) {
                if (p.egressLine.nextRelease() <= now) {
                    work += releaseEgress(p);
                }
                next = Math.min(next, p.egressLine.nextRelease());
            }
            if (p.ingressLine != null) {
                next = Math.min(next, p.ingressLine.nextRelease());
            }
            if (p.socket.txUnflushed() > 0) {
                p.socket.flush();
                work++;
            }
        }
        lastNs = now;
        // a deadline close ahead: keep polling rather than let the idle strategy park past it
        return work == 0 && next - now <= spinWindowNs ? 1 : work;
    }

    private void onReceive(RtPort p, RxFrame f) {
        if (f.truncated()) {
            p.rxTruncated++;
            return;
        }
        if (f.losing()) {
            p.rxLosing++;
        }
        // stamp each frame when the switch sees it: a clock read per pass would date frames that came in
        // while the pass ran (or the thread was descheduled) too early, and shorten their delays
        now = clock.nanoTime();
        UnsafeBuffer ring = p.rxRing;
        long base = f.buffer().address();
        if (ring.addressOffset() != base) {
            ring.wrap(base, Math.toIntExact(f.buffer().byteSize()));
        }
        int off = Math.toIntExact(f.offset());
        int len = f.length();
        if (f.vlanValid() && len >= 12) {
            int tpid = f.vlanTpid() == 0 ? 0x8100 : f.vlanTpid();
            ring.putBytes(off - 4, ring, off, 12);
            off -= 4;
            len += 4;
            ring.putShort(off + 12, (short) tpid, java.nio.ByteOrder.BIG_ENDIAN);
            ring.putShort(off + 14, (short) f.vlanTci(), java.nio.ByteOrder.BIG_ENDIAN);
        }
        if (p.pcap != null) {
            p.pcap.write(now + epochOffsetNs, ring, off, len);
        }
        Impairment imp = p.ingress;
        if (imp == null) {
            core.onFrame(p.index, ring, off, len, now);
            return;
        }
        Impairment.Result r = imp.offer(now, len);
        for (int i = 0; i < r.copies; i++) {
            int flip = r.corruptByte[i];
            int mask = r.corruptMask[i];
            if (r.releaseAt[i] <= now) {
                flip(ring, off, len, flip, mask);
                core.onFrame(p.index, ring, off, len, now);
                flip(ring, off, len, flip, mask);
            } else if (!p.ingressLine.add(ring, off, len, r.releaseAt[i], flip, mask)) {
                p.delayLineFull++;
            }
        }
    }

    private static void flip(UnsafeBuffer b, int off, int len, int index, int mask) {
        if (index >= 0 && index < len) {
            b.putByte(off + index, (byte) (b.getByte(off + index) ^ mask));
        }
    }

    private int releaseIngress(RtPort p) {
        int n = 0;
        ReleaseHeap line = p.ingressLine;
        while (line.nextRelease() <= now) {
            long late = now - line.nextRelease();
            p.delayedFrames++;
            p.lateSumNs += late;
            p.lateMaxNs = Math.max(p.lateMaxNs, late);
            int len = line.pollInto(scratch, 0);
            core.onFrame(p.index, scratch, 0, len, now);
            n++;
        }
        return n;
    }

    private int releaseEgress(RtPort p) {
        int n = 0;
        ReleaseHeap line = p.egressLine;
        while (line.nextRelease() <= now) {
            if (line.peekLength() > p.txMaxFrame) {
                line.pollInto(scratch, 0);
                p.txTooLong++;
                continue;
            }
            int slot = acquire(p);
            if (slot < 0) {
                break; // TX ring full: the frames wait in the line for the next pass
            }
            long late = now - line.nextRelease();
            p.delayedFrames++;
            p.lateSumNs += late;
            p.lateMaxNs = Math.max(p.lateMaxNs, late);
            int data = (int) p.socket.txDataOffset(slot);
            int len = line.pollInto(p.txRing, data);
            if (p.pcap != null) {
                p.pcap.write(now + epochOffsetNs, p.txRing, data, len);
            }
            commit(p, slot, len);
            n++;
        }
        return n;
    }

    /** The core starts sending a frame on {@code port} (the buffer is valid only during this call). */
    private void transmit(int port, DirectBuffer buffer, int offset, int length, long txStart, long txEnd) {
        RtPort p = ports[port];
        Impairment imp = p.egress;
        if (imp == null) {
            send(p, buffer, offset, length, -1, 0);
            return;
        }
        Impairment.Result r = imp.offer(txEnd, length);
        for (int i = 0; i < r.copies; i++) {
            if (r.releaseAt[i] <= now) {
                send(p, buffer, offset, length, r.corruptByte[i], r.corruptMask[i]);
            } else if (!p.egressLine.add(buffer, offset, length, r.releaseAt[i], r.corruptByte[i], r.corruptMask[i])) {
                p.delayLineFull++;
            }
        }
    }

    private void send(RtPort p, DirectBuffer buffer, int offset, int length, int flip, int mask) {
        if (length > p.txMaxFrame) {
            p.txTooLong++;
            return;
        }
        int slot = acquire(p);
        if (slot < 0) {
            p.txRingFull++;
            return;
        }
        int data = (int) p.socket.txDataOffset(slot);
        p.txRing.putBytes(data, buffer, offset, length);
        flip(p.txRing, data, length, flip, mask);
        if (p.pcap != null) {
            p.pcap.write(now + epochOffsetNs, p.txRing, data, length);
        }
        commit(p, slot, length);
    }

    private int acquire(RtPort p) {
        int slot = p.socket.txAcquire();
        if (slot < 0) {
            p.socket.flush();
            slot = p.socket.txAcquire();
        }
        return slot;
    }

    private void commit(RtPort p, int slot, int length) {
        p.socket.txCommit(slot, length);
        if (p.socket.txUnflushed() >= txBatch) {
            p.socket.flush();
        }
    }

    /** Closes every socket and pcap; idempotent. Called by the agent runner when it stops. */
    @Override
    public void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        for (RtPort p : ports) {
            closePort(p);
        }
    }

    private static void closePort(RtPort p) {
        try {
            if (!p.socket.isClosed()) {
                p.socket.flush(true);
            }
        } finally {
            p.close();
            if (p.pcap != null) {
                try {
                    p.pcap.close();
                } catch (IOException e) {
                    System.err.println("pcap of " + p.interfaceName + ": " + e.getMessage());
                }
            }
        }
    }
}
