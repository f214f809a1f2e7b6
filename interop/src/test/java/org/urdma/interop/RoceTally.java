package org.urdma.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.FrameClass;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;

/**
 * What one sender (by IPv4 source) put into a capture, decoded with urdma's codecs: RC ACKs, RNR NAKs (AETH
 * syndrome type 01, with their timer codes), other NAKs, and requests sent again with a PSN it had already sent
 * (retries).
 */
record RoceTally(int frames, int acks, int rnrNaks, int naks, Set<Integer> rnrTimerCodes, int requests, int resent) {

    static RoceTally of(Path pcap, String sourceIp) throws IOException {
        int src = ipv4(sourceIp);
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        int frames = 0, acks = 0, rnr = 0, naks = 0, requests = 0, resent = 0;
        Set<Integer> codes = new HashSet<>();
        Map<Integer, Set<Integer>> psnsByQp = new HashMap<>();
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                FrameClass c = d.classify(r.buffer(), 0, r.capturedLength());
                if (c != FrameClass.ROCE2 || d.decode(r.buffer(), 0, r.capturedLength(), p) != DecodeStatus.OK
                        || p.ipSrc != src) {
                    continue;
                }
                frames++;
                if (p.opcode == Opcode.RC_ACKNOWLEDGE) {
                    if (Aeth.isRnrNak(p.aethSyndrome)) {
                        rnr++;
                        codes.add(Aeth.value(p.aethSyndrome));
                    } else if (Aeth.isNak(p.aethSyndrome)) {
                        naks++;
                    } else {
                        acks++;
                    }
                } else if (p.opcode < 0x20 && !isResponse(p.opcode)) { // RC requests
                    requests++;
                    if (!psnsByQp.computeIfAbsent(p.destQp, q -> new HashSet<>()).add(p.psn)) {
                        resent++;
                    }
                }
            }
        }
        return new RoceTally(frames, acks, rnr, naks, codes, requests, resent);
    }

    private static boolean isResponse(int opcode) {
        return opcode == Opcode.RC_ACKNOWLEDGE || opcode == Opcode.RC_ATOMIC_ACKNOWLEDGE
                || (opcode >= Opcode.RC_RDMA_READ_RESPONSE_FIRST && opcode <= Opcode.RC_RDMA_READ_RESPONSE_ONLY);
    }

    private static int ipv4(String dotted) {
        int v = 0;
        for (String part : dotted.split("\\.")) {
            v = v << 8 | Integer.parseInt(part);
        }
        return v;
    }

    /**
     * What became of {@code naker}'s RNR NAKs: {@code retried} ones were followed by {@code requester} sending the NAK'd
     * PSN again (the retry the RNR NAK asks for); {@code superseded} ones by {@code naker} acknowledging that PSN first
     * (an earlier copy already in flight got through, so no retry was due); {@code open} ones by neither.
     */
    record RnrOutcome(int retried, int superseded, int open) {
    }

    static RnrOutcome rnrOutcome(Path pcap, String naker, String requester) throws IOException {
        int from = ipv4(naker), to = ipv4(requester);
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        Map<Integer, Integer> waiting = new HashMap<>(); // NAK'd PSN -> RNR NAKs not yet answered
        int retried = 0, superseded = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                FrameClass c = d.classify(r.buffer(), 0, r.capturedLength());
                if (c != FrameClass.ROCE2 || d.decode(r.buffer(), 0, r.capturedLength(), p) != DecodeStatus.OK) {
                    continue;
                }
                if (p.ipSrc == from && p.opcode == Opcode.RC_ACKNOWLEDGE && Aeth.isRnrNak(p.aethSyndrome)) {
                    waiting.merge(p.psn, 1, Integer::sum);
                } else if (p.ipSrc == from && p.opcode == Opcode.RC_ACKNOWLEDGE && Aeth.isAck(p.aethSyndrome)) {
                    int acked = p.psn;
                    var it = waiting.entrySet().iterator();
                    while (it.hasNext()) {
                        var e = it.next();
                        if (((acked - e.getKey()) & 0xFFFFFF) < 0x800000) { // acked at or after the NAK'd PSN
                            superseded += e.getValue();
                            it.remove();
                        }
                    }
                } else if (p.ipSrc == to && p.opcode < 0x20 && !isResponse(p.opcode)) {
                    Integer n = waiting.remove(p.psn);
                    if (n != null) retried += n;
                }
            }
        }
        int open = 0;
        for (int n : waiting.values()) open += n;
        return new RnrOutcome(retried, superseded, open);
    }

    /** The largest RoCEv2 frame in the capture (bytes on the wire without FCS), or 0. */
    static int largestRoceFrame(Path pcap) throws IOException {
        AnyFrameDecoder d = new AnyFrameDecoder();
        int largest = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                if (d.classify(r.buffer(), 0, r.capturedLength()) == FrameClass.ROCE2) largest = Math.max(largest, r.capturedLength());
            }
        }
        return largest;
    }
}
