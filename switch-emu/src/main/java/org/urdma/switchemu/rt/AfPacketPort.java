package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.RxFrame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A switch port on a network interface (a veth in the switch's namespace) through the native module's
 * AF_PACKET socket: TPACKET_V2 rings (per-frame hand-over, no block retire delay), promiscuous, not
 * seeing its own transmissions. The kernel strips a received 802.1Q tag into metadata; the port puts it
 * back so the switch classifies on PCP and forwards the frame as it was sent. A frame whose TCP/UDP
 * checksum the sending kernel left to offload gets it completed, as the NIC would have.
 */
public final class AfPacketPort implements FramePort, AutoCloseable {
    private final AfPacketSocket socket;
    private final UnsafeBuffer rxView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer retagged;
    private final UnsafeBuffer txView = new UnsafeBuffer(0, 0);
    private final FrameHandler handler = this::onFrame;
    private Receiver receiver;
    private static final int TP_STATUS_CSUMNOTREADY = 1 << 3;
    /** Frames the kernel truncated to the ring's frame size (dropped here). */
    public long truncated;
    /** TCP/UDP checksums left to offload by the sending kernel and completed here. */
    public long checksumsCompleted;

    public AfPacketPort(AfPacketSocket socket) {
        this.socket = socket;
        this.retagged = new UnsafeBuffer(ByteBuffer.allocateDirect(socket.txMaxFrameLength() + 8));
    }

    /** Opens the interface in the calling thread's namespace with switch-port options for {@code mtu}. */
    public static AfPacketPort open(String interfaceName, int mtu) {
        AfPacketOptions options = AfPacketOptions.forMtu(mtu).version(AfPacketOptions.Version.V2).promiscuous(true)
            .ignoreOutgoing(true);
        return new AfPacketPort(AfPacketSocket.open(interfaceName, options));
    }

    public AfPacketSocket socket() {
        return socket;
    }

    @Override
    public int receive(Receiver receiver, int limit) {
        this.receiver = receiver;
        return socket.receive(handler);
    }

    private void onFrame(RxFrame f) {
        if (f.truncated()) {
            truncated++;
            return;
        }
        int length = f.length();
        rxView.wrap(f.address(), length);
        UnsafeBuffer frame = rxView;
        if (f.vlanValid() && length >= 12 && length + 4 <= retagged.capacity()) {
            int tpid = f.vlanTpid() != 0 ? f.vlanTpid() : 0x8100;
            retagged.putBytes(0, rxView, 0, 12);
            retagged.putShort(12, (short) tpid, ByteOrder.BIG_ENDIAN);
            retagged.putShort(14, (short) f.vlanTci(), ByteOrder.BIG_ENDIAN);
            retagged.putBytes(16, rxView, 12, length - 12);
            frame = retagged;
            length += 4;
        }
        if ((f.status() & TP_STATUS_CSUMNOTREADY) != 0 && L4Checksum.complete(frame, 0, length)) {
            checksumsCompleted++;
        }
        receiver.onFrame(frame, 0, length);
    }

    @Override
    public boolean send(DirectBuffer buffer, int offset, int length) {
        if (length < 14 || length > socket.txMaxFrameLength()) {
            return false;
        }
        int slot = socket.txAcquire();
        if (slot < 0) {
            socket.flush();
            slot = socket.txAcquire();
            if (slot < 0) {
                return false;
            }
        }
        txView.wrap(socket.txDataAddress(slot), length);
        txView.putBytes(0, buffer, offset, length);
        socket.txCommit(slot, length);
        return true;
    }

    @Override
    public void flush() {
        if (socket.txUnflushed() > 0) {
            socket.flush();
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
