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
     * How many of {@code naker}'s RNR NAKs were answered: {@code requester} later sent a request with the NAK'd PSN
     * again (the retry the RNR NAK asks for).
     */
    static int rnrNaksRetried(Path pcap, String naker, String requester) throws IOException {
        int from = ipv4(naker), to = ipv4(requester);
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        Map<Integer, Integer> waiting = new HashMap<>(); // NAK'd PSN -> RNR NAKs not yet answered
        int answered = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                FrameClass c = d.classify(r.buffer(), 0, r.capturedLength());
                if (c != FrameClass.ROCE2 || d.decode(r.buffer(), 0, r.capturedLength(), p) != DecodeStatus.OK) {
                    continue;
                }
                if (p.ipSrc == from && p.opcode == Opcode.RC_ACKNOWLEDGE && Aeth.isRnrNak(p.aethSyndrome)) {
                    waiting.merge(p.psn, 1, Integer::sum);
                } else if (p.ipSrc == to && p.opcode < 0x20 && !isResponse(p.opcode)) {
                    Integer n = waiting.remove(p.psn);
                    if (n != null) answered += n;
                }
            }
        }
        return answered;
    }
}
