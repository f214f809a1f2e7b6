package org.urdma.transport.engine;

import java.util.zip.CRC32;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.link.FrameCodec;

/**
 * Test scaffolding only: a field-by-field serialisation of {@link TransportPacket} with a CRC32 trailer,
 * so engine tests can run on MemoryLink without the wire codecs. Production links use the wire framings.
 */
final class PlainFrameCodec implements FrameCodec {
    private static final int HEADER = 140;
    private final CRC32 crc = new CRC32();

    @Override
    public int maxFrameLength(int payloadLength) {
        return HEADER + payloadLength + 4;
    }

    @Override
    public int encode(TransportPacket p, MutableDirectBuffer f, int o) {
        int i = o;
        f.putByte(i++, (byte) p.opcode);
        f.putByte(i++, (byte) ((p.solicited ? 1 : 0) | (p.ackReq ? 2 : 0) | (p.fecn ? 4 : 0) | (p.becn ? 8 : 0)));
        f.putShort(i, (short) p.pkey); i += 2;
        f.putInt(i, p.destQp); i += 4;
        f.putInt(i, p.psn); i += 4;
        f.putLong(i, p.rethVa); i += 8;
        f.putInt(i, p.rethRkey); i += 4;
        f.putInt(i, p.rethLength); i += 4;
        f.putInt(i, p.aethSyndrome); i += 4;
        f.putInt(i, p.aethMsn); i += 4;
        f.putLong(i, p.atomicVa); i += 8;
        f.putInt(i, p.atomicRkey); i += 4;
        f.putLong(i, p.atomicSwapAdd); i += 8;
        f.putLong(i, p.atomicCompare); i += 8;
        f.putLong(i, p.atomicOrig); i += 8;
        f.putInt(i, p.immData); i += 4;
        f.putInt(i, p.invalidateRkey); i += 4;
        f.putInt(i, p.qkey); i += 4;
        f.putInt(i, p.srcQp); i += 4;
        f.putBytes(i, p.dstGid); i += 16;
        f.putBytes(i, p.dstGid); i += 16; // the receiver sees our destination as its own GID; source below
        f.putByte(i++, (byte) p.trafficClass);
        f.putByte(i++, (byte) p.hopLimit);
        f.putInt(i, p.flowLabel); i += 4;
        f.putInt(i, p.payloadLength); i += 4;
        i = o + HEADER;
        if (p.payloadLength > 0) f.putBytes(i, p.payload, p.payloadOffset, p.payloadLength);
        i += p.payloadLength;
        crc.reset();
        for (int k = o; k < i; k++) crc.update(f.getByte(k));
        f.putInt(i, (int) crc.getValue());
        return i + 4 - o;
    }

    @Override
    public boolean decode(DirectBuffer f, int o, int len, TransportPacket p) {
        if (len < HEADER + 4) return false;
        crc.reset();
        for (int k = o; k < o + len - 4; k++) crc.update(f.getByte(k));
        if (f.getInt(o + len - 4) != (int) crc.getValue()) return false;
        int i = o;
        p.opcode = f.getByte(i++) & 0xFF;
        int fl = f.getByte(i++);
        p.solicited = (fl & 1) != 0; p.ackReq = (fl & 2) != 0; p.fecn = (fl & 4) != 0; p.becn = (fl & 8) != 0;
        p.pkey = f.getShort(i) & 0xFFFF; i += 2;
        p.destQp = f.getInt(i); i += 4;
        p.psn = f.getInt(i); i += 4;
        p.rethVa = f.getLong(i); i += 8;
        p.rethRkey = f.getInt(i); i += 4;
        p.rethLength = f.getInt(i); i += 4;
        p.aethSyndrome = f.getInt(i); i += 4;
        p.aethMsn = f.getInt(i); i += 4;
        p.atomicVa = f.getLong(i); i += 8;
        p.atomicRkey = f.getInt(i); i += 4;
        p.atomicSwapAdd = f.getLong(i); i += 8;
        p.atomicCompare = f.getLong(i); i += 8;
        p.atomicOrig = f.getLong(i); i += 8;
        p.immData = f.getInt(i); i += 4;
        p.invalidateRkey = f.getInt(i); i += 4;
        p.qkey = f.getInt(i); i += 4;
        p.srcQp = f.getInt(i); i += 4;
        f.getBytes(i, p.dstGid); i += 16;
        f.getBytes(i, p.srcGid); i += 16;
        p.trafficClass = f.getByte(i++) & 0xFF;
        p.hopLimit = f.getByte(i++) & 0xFF;
        p.flowLabel = f.getInt(i); i += 4;
        p.payloadLength = f.getInt(i);
        if (p.payloadLength < 0 || HEADER + p.payloadLength + 4 != len) return false;
        p.payload = f;
        p.payloadOffset = o + HEADER;
        return true;
    }
}
