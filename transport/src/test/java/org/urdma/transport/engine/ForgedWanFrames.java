package org.urdma.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;

/**
 * The frames a third host forges against WAN-mode QPs, filled into a packet its caller has already addressed (MACs,
 * IPs, GIDs): requests, FEC parity, SACKs and READ responses with the WAN flags and the urdma resv7 marker.
 */
public final class ForgedWanFrames {
    public static final int WAN = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK | OpcodeTable.UETH_FEC;

    private ForgedWanFrames() {
    }

    /** A request of 512 bytes to {@code destQp} with a per-packet RETH (when the flags say so) and a timestamp. */
    public static Packet request(Packet p, int destQp, int opcode, int psn, int rkey, long va, int uethFlags, UnsafeBuffer payload) {
        p.opcode = opcode;
        p.destQp = destQp;
        p.psn = psn;
        p.resv7 = OpcodeTable.RESV7_URDMA;
        p.uethFlags = uethFlags;
        p.rethVa = va;
        p.rethRkey = rkey;
        p.rethDmaLength = 512; // within the WAN payload MTU (the path MTU less the WAN headers)
        p.payloadBuffer = payload;
        p.payloadLength = 512;
        return p;
    }

    /** P-FEC parity (index 0 of 1) for the group of {@code m} packets at {@code base}. */
    public static Packet parity(Packet p, int destQp, int base, int m, UnsafeBuffer payload) {
        p.opcode = Opcode.URDMA_FEC_PARITY;
        p.destQp = destQp;
        p.psn = 0;
        p.resv7 = OpcodeTable.RESV7_URDMA;
        p.uethFlags = WAN;
        p.fecBasePsn = base;
        p.fecM = m;
        p.fecR = 1;
        p.fecIndex = 0;
        p.fecLengthXor = 64;
        p.payloadBuffer = payload;
        p.payloadLength = 64;
        return p;
    }

    /** An ACK for {@code psn} whose SACK-ETH lists two missing ranges just after it and 5000 PSNs on. */
    public static Packet sack(Packet p, int destQp, int psn) {
        p.pkey = 0xFFFF;
        p.opcode = Opcode.RC_ACKNOWLEDGE;
        p.destQp = destQp;
        p.psn = psn;
        p.resv7 = OpcodeTable.RESV7_URDMA;
        p.uethFlags = OpcodeTable.UETH_SACK | OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH;
        p.aethSyndrome = Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID;
        p.sackCount = 2;
        p.sackCumulativePsn = psn;
        p.sackRangeStart[0] = Psn.add(psn, 1);
        p.sackRangeLength[0] = 255;
        p.sackRangeStart[1] = Psn.add(psn, 5000);
        p.sackRangeLength[1] = 255;
        return p;
    }

    /** A READ_RESPONSE_ONLY of 512 bytes at {@code psn}, which no READ asked for. */
    public static Packet readResponse(Packet p, int destQp, int psn, UnsafeBuffer payload) {
        p.pkey = 0xFFFF;
        p.opcode = Opcode.RC_RDMA_READ_RESPONSE_ONLY;
        p.destQp = destQp;
        p.psn = psn;
        p.resv7 = OpcodeTable.RESV7_URDMA;
        p.uethFlags = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH;
        p.aethSyndrome = Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID;
        p.rethVa = 0;
        p.rethDmaLength = 512; // within the WAN payload MTU (the path MTU less the WAN headers)
        p.payloadBuffer = payload;
        p.payloadLength = 512;
        return p;
    }
}
