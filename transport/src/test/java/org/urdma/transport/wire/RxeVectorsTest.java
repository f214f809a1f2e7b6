package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class RxeVectorsTest {
    @Test
    void everyRxeFrameDecodesVerifiesIcrcAndReencodesByteForByte() throws Exception {
        final List<byte[]> frames = Vectors.frames("rxe-vectors.pcap");
        assertEquals(792, frames.size());
        final Framing roce2 = Framings.of(FramingKind.ROCE2);
        final Framing readOnly = Framings.of(FramingKind.ROCE2, true, false);
        final Packet p = new Packet();
        final Packet copy = new Packet();
        final UnsafeBuffer out = new UnsafeBuffer(new byte[10000]);
        final Set<Integer> opcodes = new HashSet<>();
        int ipv6 = 0;
        for (int i = 0; i < frames.size(); i++) {
            final byte[] f = frames.get(i);
            final byte[] pristine = f.clone();
            final DecodeStatus s = roce2.decode(new UnsafeBuffer(f), 0, f.length, p);
            assertEquals(DecodeStatus.OK, s, "frame " + (i + 1));
            assertArrayEquals(pristine, f, "in-place ICRC check must leave the frame as it was");
            assertEquals(DecodeStatus.OK, readOnly.decode(new UnsafeBuffer(f), 0, f.length, copy), "frame " + (i + 1));
            // a flipped bit anywhere the ICRC covers (payload, transport headers) is caught
            final int th = p.transportOffset;
            final int bit = (th + 12) * 8 + (i * 7919) % ((f.length - 4 - th - 12) * 8);
            f[bit >> 3] ^= (byte)(1 << (bit & 7));
            assertEquals(DecodeStatus.BAD_ICRC, roce2.decode(new UnsafeBuffer(f), 0, f.length, copy), "frame " + (i + 1));
            assertEquals(DecodeStatus.BAD_ICRC, readOnly.decode(new UnsafeBuffer(f), 0, f.length, copy), "frame " + (i + 1));
            f[bit >> 3] ^= (byte)(1 << (bit & 7));
            opcodes.add(p.opcode);
            ipv6 += p.ipv6 ? 1 : 0;
            copy.copyFrom(p);
            final int len = roce2.encode(copy, out, 0);
            final byte[] re = new byte[len];
            out.getBytes(0, re);
            assertArrayEquals(f, re, "frame " + (i + 1) + " " + p);
        }
        assertEquals(60, ipv6);
        final AnyFrameDecoder any = new AnyFrameDecoder();
        for (final byte[] f : frames) {
            assertEquals(FrameClass.ROCE2, any.classify(new UnsafeBuffer(f), 0, f.length));
            assertEquals(DecodeStatus.OK, any.decode(new UnsafeBuffer(f), 0, f.length, p));
        }
        assertEquals(36, opcodes.size(), "distinct opcodes in the vectors");
    }

    /** Cross-checks kind, PSN, PadCnt and AETH syndrome class of every frame against rxe-vectors.txt. */
    @Test
    void decodedFieldsMatchTheVectorListing() throws Exception {
        final List<byte[]> frames = Vectors.frames("rxe-vectors.pcap");
        final List<String> lines = java.nio.file.Files.readAllLines(Vectors.path("rxe-vectors.txt"));
        final java.util.regex.Pattern row = java.util.regex.Pattern.compile(
            "^\\s*(\\d+)\\s+\\S+\\s*#\\d+\\s+\\S+\\s+(\\S+)\\s+psn=([0-9a-f]+) pad=(\\d) icrc=ok");
        final Framing roce2 = Framings.of(FramingKind.ROCE2);
        final Packet p = new Packet();
        int checked = 0;
        int rnr = 0;
        int nak = 0;
        for (final String line : lines) {
            final java.util.regex.Matcher m = row.matcher(line);
            if (!m.find()) {
                continue;
            }
            final int n = Integer.parseInt(m.group(1));
            final byte[] f = frames.get(n - 1);
            assertEquals(DecodeStatus.OK, roce2.decode(new UnsafeBuffer(f), 0, f.length, p), line);
            String kind = m.group(2);
            final int at = kind.indexOf('@');
            kind = at < 0 ? kind : kind.substring(0, at);
            String aeth = null;
            final int paren = kind.indexOf('(');
            if (paren >= 0) {
                aeth = kind.substring(paren + 1, kind.length() - 1);
                kind = kind.substring(0, paren);
            }
            assertEquals(kind, rxeStyle(Opcode.name(p.opcode)), line);
            assertEquals(Integer.parseInt(m.group(3), 16), p.psn, line);
            assertEquals(Integer.parseInt(m.group(4)), p.padCnt, line);
            if ("RNR_NAK".equals(aeth)) {
                assertTrue(Aeth.isRnrNak(p.aethSyndrome), line);
                rnr++;
            } else if ("NAK_PSN_SEQ_ERR".equals(aeth)) {
                assertTrue(Aeth.isNak(p.aethSyndrome), line);
                assertEquals(Aeth.NAK_PSN_SEQUENCE_ERROR, Aeth.value(p.aethSyndrome), line);
                nak++;
            } else if ("ACK".equals(aeth)) {
                assertTrue(Aeth.isAck(p.aethSyndrome), line);
            } else if ("QP1_CM_MAD".equals(aeth)) {
                assertEquals(1, p.destQp, line);
                assertEquals(256, p.payloadLength, line);
            }
            checked++;
        }
        assertEquals(792, checked);
        assertEquals(14, rnr);
        assertEquals(10, nak);
    }

    private static String rxeStyle(final String name) {
        return name.replace("RDMA_READ_RESPONSE", "READ_RESP").replace("RDMA_READ_REQUEST", "READ_REQUEST")
            .replace("RDMA_WRITE", "WRITE").replace("_WITH_IMM", "_IMM").replace("_WITH_INVALIDATE", "_INV")
            .replace("COMPARE_SWAP", "CMP_SWAP");
    }
}
