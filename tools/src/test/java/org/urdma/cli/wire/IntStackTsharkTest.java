package org.urdma.cli.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;

/** Wireshark reads the IBTA headers of packets that carry an INT stack (a trailer) as it reads them without one. */
class IntStackTsharkTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void tshark() {
        Tshark.requireInstalled();
    }

    @Test
    void aStampedWriteAndAnAckWithTheEchoDecodeWithoutErrors() throws Exception {
        Framing f = Framings.of(FramingKind.ROCE2, true);
        UnsafeBuffer payload = new UnsafeBuffer(new byte[1024]);
        Packet w = new Packet();
        w.opcode = Opcode.RC_RDMA_WRITE_FIRST;
        w.destQp = 0x123;
        w.psn = 0x4567;
        w.resv7 = OpcodeTable.RESV7_INT;
        w.rethVa = 0x1000_2000L;
        w.rethRkey = 0x77;
        w.rethDmaLength = 65536;
        w.payloadBuffer = payload;
        w.payloadLength = 1024;
        IntStack.putEmpty(w.intStack, 0);
        IntStack.push(w.intStack, 0, 100_000_000_000L, 2560, 12800, 1234);
        Packet a = new Packet();
        a.opcode = Opcode.RC_ACKNOWLEDGE;
        a.destQp = 0x321;
        a.psn = 0x4567;
        a.resv7 = OpcodeTable.RESV7_INT;
        a.aethSyndrome = Aeth.SYNDROME_ACK | 0x1F;
        a.aethMsn = 9;
        a.intStack.putBytes(0, w.intStack, 0, IntStack.LENGTH);
        IntStack.echo(a.intStack, 0, true);
        Path pcap = dir.resolve("int.pcap");
        try (PcapWriter out = new PcapWriter(pcap)) {
            long ts = 0;
            for (Packet p : List.of(w, a)) {
                UnsafeBuffer frame = new UnsafeBuffer(new byte[f.maxFrameLength(1024)]);
                int len = f.encode(p, frame, 0);
                out.write(ts += 1000, frame, 0, len);
            }
        }
        List<Map<String, String>> rows = Tshark.fields(pcap, List.of(), "infiniband.bth.opcode", "infiniband.bth.destqp",
            "infiniband.bth.psn", "infiniband.reth.va", "infiniband.reth.dmalen", "infiniband.aeth.msn",
            "_ws.expert.severity", "_ws.malformed");
        assertEquals(2, rows.size());
        Map<String, String> write = rows.get(0);
        assertEquals("6", write.get("infiniband.bth.opcode"), write.toString());
        assertEquals("0x000123", write.get("infiniband.bth.destqp"), write.toString());
        assertEquals("17767", write.get("infiniband.bth.psn"), write.toString());
        assertEquals("0x0000000010002000", write.get("infiniband.reth.va"), write.toString());
        assertEquals("65536", write.get("infiniband.reth.dmalen"), write.toString());
        Map<String, String> ack = rows.get(1);
        assertEquals("17", ack.get("infiniband.bth.opcode"), ack.toString());
        assertEquals("9", ack.get("infiniband.aeth.msn"), ack.toString());
        for (Map<String, String> r : rows) {
            assertEquals("", r.get("_ws.malformed"), r.toString());
            for (String s : r.get("_ws.expert.severity").split(",")) {
                assertTrue(s.isEmpty() || Long.decode(s) < 0x00600000L, "no warning or error: " + r);
            }
        }
    }
}
