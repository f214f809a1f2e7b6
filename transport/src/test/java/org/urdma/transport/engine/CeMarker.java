package org.urdma.transport.engine;

import java.util.ArrayList;
import java.util.List;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.EthernetHeader;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Ipv4Header;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;

/**
 * Watches the frames one in-memory link end sends and, while {@link #marking} is on, CE-marks the ECN-capable IPv4
 * ones in place (TOS ECN bits to 0b11, header checksum fixed), as a congested switch would. Records every CNP seen.
 */
final class CeMarker implements MemoryLink.FrameTap {
    boolean marking = true;
    long ectSeen;
    long notEctSeen;
    long marked;
    /** Codepoints of the IPv4 frames seen (before marking). */
    int lastEcn = -1;
    final List<Packet> cnps = new ArrayList<>();
    final List<Long> cnpTimes = new ArrayList<>();
    private final Framing decoder;

    CeMarker(FramingKind kind) {
        decoder = Framings.of(kind);
    }

    @Override
    public void onFrame(DirectBuffer frame, int offset, int length, long now) {
        if ((frame.getShort(offset + 12, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) != EthernetHeader.TYPE_IPV4) return;
        int ip = offset + 14;
        int tos = Ipv4Header.tos(frame, ip);
        lastEcn = tos & Ipv4Header.ECN_MASK;
        if (lastEcn == 0) notEctSeen++;
        else ectSeen++;
        Packet p = new Packet();
        if (decoder.decode(frame, offset, length, p) == org.urdma.transport.wire.DecodeStatus.OK && p.opcode == Opcode.CNP) {
            cnps.add(p);
            cnpTimes.add(now);
            return; // the notifications themselves are left alone
        }
        if (marking && lastEcn != 0) {
            MutableDirectBuffer b = (MutableDirectBuffer) frame;
            b.putByte(ip + 1, (byte) (tos | Ipv4Header.ECN_CE));
            Ipv4Header.putChecksum(b, ip);
            marked++;
        }
    }
}
