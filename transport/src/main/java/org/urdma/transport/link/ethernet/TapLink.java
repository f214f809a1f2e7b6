package org.urdma.transport.link.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.Errno;
import org.urdma.nativeio.TapDevice;
import org.urdma.transport.engine.TransportPacket;
import org.urdma.transport.link.Link;
import org.urdma.transport.link.PacketSink;

/**
 * A device's port on a TAP device, like a virtual machine's NIC: what the engine writes arrives on the
 * kernel's tapN interface (e.g. enslaved to a bridge), what the kernel sends out of tapN the engine reads.
 * The port has its own MAC (not tapN's). TAP takes one frame per read/write syscall, so there is no batching;
 * each packet is encoded into one reusable native buffer and written. Engine thread only.
 */
public final class TapLink implements Link, AutoCloseable {
    private static final int BUFFER = 65536;
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

    /**
     * @param tap          an open TAP device (its MTU already set)
     * @param interfaceMtu the tap interface's MTU (frames up to MTU + 14, or + 18 tagged)
     * @param ownsTap      close the TAP device with the link
     */
    public TapLink(TapDevice tap, EthernetLinkConfig config, int interfaceMtu, boolean ownsTap) {
        this.tap = tap;
        this.ownsTap = ownsTap;
        this.datapath = new EthernetDatapath(config);
        this.counters = datapath.counters;
        this.maxFrame = Math.min(BUFFER, interfaceMtu + 18);
        this.maxPayload = datapath.maxPayloadFor(interfaceMtu);
        datapath.arp().attach(this::sendRaw, datapath.baseTci());
    }

    @Override
    public org.urdma.verbs.Gid gid(int index) {
        return datapath().gids().gid(index);
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
    public boolean send(TransportPacket packet, long now) {
        int len = datapath.encode(packet, txView, 0, maxFrame, now);
        if (len < 0) return true; // counted and dropped
        int rc = tap.write(txSeg, 0, len);
        if (rc == -Errno.EAGAIN || rc == -Errno.ENOBUFS) {
            counters.txFrames--; // not sent after all: the engine offers it again
            counters.txBytes -= len;
            counters.txBackPressure++;
            return false;
        }
        if (rc < 0) counters.txErrors++; // e.g. EIO while the interface is down: dropped, as on a dead wire
        else counters.txFlushes++;
        return true;
    }

    private boolean sendRaw(DirectBuffer frame, int offset, int length) {
        if (length > maxFrame) return false;
        txView.putBytes(0, frame, offset, length);
        int rc = tap.write(txSeg, 0, length);
        if (rc >= 0) datapath.sentRaw(txView, 0, length, now);
        return rc >= 0;
    }

    @Override
    public int flush(long now) {
        this.now = now;
        return datapath.arp().poll(now);
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
