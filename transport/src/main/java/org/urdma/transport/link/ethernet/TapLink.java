package org.urdma.transport.link.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.Errno;
import org.urdma.nativeio.TapDevice;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;

/**
 * A device's port on a TAP device, like a virtual machine's NIC: what the engine writes arrives on the
 * kernel's tapN interface (e.g. enslaved to a bridge), what the kernel sends out of tapN the engine reads.
 * The port has its own MAC (not tapN's). TAP takes one frame per read/write syscall, so there is no batching;
 * each packet is built in one reusable native buffer and written. Engine thread only.
 */
public final class TapLink implements Link, AutoCloseable {
    private static final int BUFFER = 65536;
    /** Frames the kernel queues towards a TAP reader (the tun driver's default txqueuelen): CBFC's RX buffer here. */
    static final int TAP_QUEUE_FRAMES = 500;
    private final TapDevice tap;
    private final boolean ownsTap;
    private final EthernetDatapath datapath;
    private final LinkCounters counters;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment txSeg = arena.allocate(BUFFER, 64);
    private final MemorySegment rxSeg = arena.allocate(BUFFER, 64);
    private final UnsafeBuffer txView = new UnsafeBuffer(txSeg.address(), BUFFER);
    private final UnsafeBuffer rxView = new UnsafeBuffer(rxSeg.address(), BUFFER);
    private final int maxFrame;
    private final int maxPayload;
    private long now;
    /** A frame the kernel refused for now (EAGAIN/ENOBUFS): written again before anything else is built. */
    private int unsent;

    /**
     * @param tap          an open TAP device (its MTU already set)
     * @param interfaceMtu the tap interface's MTU (frames up to MTU + 14, or + 18 tagged)
     * @param ownsTap      close the TAP device with the link
     */
    public TapLink(TapDevice tap, EthernetLinkConfig config, int interfaceMtu, boolean ownsTap) {
        this.tap = tap;
        this.ownsTap = ownsTap;
        this.datapath = new EthernetDatapath(config, AfPacketLink.interfaceSpeedBps(tap.name()), TAP_QUEUE_FRAMES);
        this.counters = datapath.counters;
        this.maxFrame = Math.min(BUFFER, interfaceMtu + 18);
        this.maxPayload = datapath.maxPayloadFor(interfaceMtu);
        datapath.arp().attach(this::sendRaw, datapath.baseTci());
        datapath.attach(this::sendRaw);
    }

    @Override
    public org.urdma.verbs.Gid gid(int index) {
        return datapath().gids().gid(index);
    }

    /** A TAP device hands us every frame the kernel sends it: only the datapath filters. */
    @Override
    public void joinMulticast(long mac) {
        datapath.joinMulticast(mac);
    }

    @Override
    public void leaveMulticast(long mac) {
        datapath.leaveMulticast(mac);
    }

    public EthernetDatapath datapath() {
        return datapath;
    }

    public LinkCounters counters() {
        return counters;
    }

    public TapDevice tap() {
        return tap;
    }

    @Override
    public int maxPayload() {
        return maxPayload;
    }

    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        if (!datapath.mayStart(route, now)) return null; // its priority is paused (PFC/PAUSE)
        if (unsent > 0 && !write(unsent)) {
            counters.txBackPressure++;
            return null;
        }
        TxPacket t = datapath.begin(txView, 0);
        return datapath.fit(opcode, payloadLength, maxFrame) < 0 ? t.discard() : t; // too long: counted, dropped on commit
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
        if (packet.discarded()) return;
        int len = datapath.end(packet, route, now);
        // tap.write straight from here, the rest out of line: kept small so C2 inlines the downcall and its errno
        // capture does not allocate (LinkAllocationTest)
        int rc = tap.write(txSeg, 0, len);
        if (rc < 0) writeFailed(rc, len);
        else counters.txFlushes++;
    }

    /** Writes the frame the kernel refused before; false when it still cannot take it. */
    private boolean write(int len) {
        int rc = tap.write(txSeg, 0, len);
        if (rc < 0) return writeFailed(rc, len);
        unsent = 0;
        counters.txFlushes++;
        return true;
    }

    /** EAGAIN/ENOBUFS: kept for the next claim or flush (false); anything else: dropped as on a dead wire (true). */
    private boolean writeFailed(int rc, int len) {
        if (rc == -Errno.EAGAIN || rc == -Errno.ENOBUFS) {
            unsent = len;
            return false;
        }
        unsent = 0;
        counters.txErrors++; // e.g. EIO while the interface is down
        return true;
    }

    private boolean sendRaw(DirectBuffer frame, int offset, int length) {
        if (length > maxFrame || (unsent > 0 && !write(unsent))) return false;
        txView.putBytes(0, frame, offset, length);
        int rc = tap.write(txSeg, 0, length);
        if (rc >= 0) datapath.sentRaw(txView, 0, length, now);
        return rc >= 0;
    }

    @Override
    public int flush(long now) {
        this.now = now;
        datapath.poll(now);
        int work = unsent > 0 && write(unsent) ? 1 : 0;
        return work + datapath.arp().poll(now);
    }

    @Override
    public long nextEventTime() {
        return datapath.nextEventTime();
    }

    @Override
    public int receive(long now, PacketSink sink, int limit) {
        this.now = now;
        int n = 0;
        while (n < limit) {
            int len = tap.read(rxSeg, 0, BUFFER);
            if (len < 0) {
                if (len != -Errno.EAGAIN) counters.txErrors++;
                break;
            }
            n++;
            datapath.onFrame(rxView, 0, len, len, -1, now, sink);
            if (!sink.takesMore()) break;
        }
        return n;
    }

    @Override
    public void close() {
        datapath.closeCapture();
        if (ownsTap) tap.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "TapLink[" + tap.name() + ", " + datapath.config().framing().cliName() + ", maxPayload " + maxPayload + "]";
    }
}
