package org.urdma.bench.wire;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.Packet;

/** Packets for the wire benchmarks: one RC flow between two fixed ports, payload in direct memory like an MR. */
final class BenchPackets {
    private BenchPackets() {
    }

    /** An RC packet of {@code opcode} with a patterned direct payload buffer of {@code payloadCapacity} bytes. */
    static Packet rc(final int opcode, final int payloadCapacity) {
        final UnsafeBuffer mr = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadCapacity));
        for (int i = 0; i < payloadCapacity; i++) {
            mr.putByte(i, (byte)(i * 31 + 7));
        }
        final Packet p = new Packet();
        p.dstMac = 0x02_00_00_00_00_02L;
        p.srcMac = 0x02_00_00_00_00_01L;
        p.ipSrc = 0xC612_0001;
        p.ipDst = 0xC612_0002;
        p.sgidHi = 0xFE80_0000_0000_0000L;
        p.sgidLo = 0x0000_00FF_FE00_0001L;
        p.dgidHi = 0xFE80_0000_0000_0000L;
        p.dgidLo = 0x0000_00FF_FE00_0002L;
        p.opcode = opcode;
        p.destQp = 0x11;
        p.psn = 0x123456;
        p.ackReq = true;
        p.payloadBuffer = mr;
        return p;
    }
}
