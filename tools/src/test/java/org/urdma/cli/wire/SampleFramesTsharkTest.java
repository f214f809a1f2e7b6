package org.urdma.cli.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;

/** Wireshark, an independent decoder, reads back exactly the fields the generator encoded. */
class SampleFramesTsharkTest {
    private static final String[] FIELDS = {
        "frame.number", "eth.type", "vlan.priority", "infiniband.bth.opcode", "infiniband.bth.destqp",
        "infiniband.bth.psn", "infiniband.bth.a", "infiniband.reth.va", "infiniband.reth.r_key",
        "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.atomiceth.swapdt",
        "infiniband.atomiceth.cmpdt", "infiniband.atomicacketh.origremdt", "infiniband.immdt", "infiniband.ieth",
        "infiniband.deth.q_key", "infiniband.deth.srcqp", "macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c0",
        "macc.cbfc.pause_time.c1", "macc.cbfc.pause_time.c2", "macc.cbfc.pause_time.c3", "macc.cbfc.pause_time.c4",
        "macc.cbfc.pause_time.c5", "macc.cbfc.pause_time.c6", "macc.cbfc.pause_time.c7", "macc.pause_time",
        "_ws.expert.severity", "_ws.expert.message", "_ws.malformed"};

    @TempDir
    Path dir;

    @BeforeAll
    static void tshark() {
        Tshark.requireInstalled();
    }

    @ParameterizedTest(name = "{0} vlan={1}")
    @CsvSource({"roce1, -1", "roce1, 5", "roce2, -1", "roce2, 3"})
    void tsharkDecodesEveryGeneratedFieldWithoutErrors(final String framing, final int pcp) throws Exception {
        final FramingKind kind = FramingKind.parse(framing);
        final List<SampleFrames.Sample> samples = SampleFrames.generate(kind, pcp, 0, 42);
        final Path pcap = dir.resolve(framing + ".pcap");
        try (PcapWriter w = new PcapWriter(pcap)) {
            long ts = 0;
            for (final SampleFrames.Sample s : samples) {
                w.write(ts += 1000, new UnsafeBuffer(s.frame()), 0, s.frame().length);
            }
        }
        final List<Map<String, String>> rows = Tshark.fields(pcap, List.of(), FIELDS);
        assertEquals(samples.size(), rows.size(), "tshark frame count");
        int pfcSeen = 0;
        for (int i = 0; i < samples.size(); i++) {
            final SampleFrames.Sample s = samples.get(i);
            final Map<String, String> r = rows.get(i);
            final String where = framing + " frame " + (i + 1) + " " + s.label() + ": ";
            assertEquals("", r.get("_ws.malformed"), where + "malformed");
            assertTrue(noWarningOrError(r.get("_ws.expert.severity")),
                where + "expert info " + r.get("_ws.expert.severity") + " " + r.get("_ws.expert.message"));
            if (s.label().equals("PFC")) {
                pfcSeen++;
                assertEquals(0x0101, num(r, "macc.opcode"), where + "opcode");
                assertEquals(s.pfcClassEnable(), num(r, "macc.cbfc.enbv"), where + "class-enable vector");
                for (int p = 0; p < 8; p++) {
                    assertEquals(s.pfcQuanta()[p], num(r, "macc.cbfc.pause_time.c" + p), where + "time c" + p);
                }
                continue;
            }
            if (s.label().equals("PAUSE")) {
                assertEquals(0x0001, num(r, "macc.opcode"), where + "opcode");
                assertEquals(s.pfcQuanta()[0], num(r, "macc.pause_time"), where + "pause time");
                continue;
            }
            if (pcp >= 0) {
                assertEquals(pcp, num(r, "vlan.priority"), where + "PCP");
            }
            assertEquals(s.opcode(), num(r, "infiniband.bth.opcode"), where + "opcode");
            assertEquals(s.destQp(), num(r, "infiniband.bth.destqp"), where + "DestQP");
            assertEquals(s.psn(), num(r, "infiniband.bth.psn"), where + "PSN");
            assertEquals(s.ackReq() ? 1 : 0, num(r, "infiniband.bth.a"), where + "AckReq");
            if (s.opcode() == Opcode.CNP || s.opcode() == Opcode.URDMA_FEC_PARITY) {
                continue; // tshark 4.0 shows these as opcodes without extended headers
            }
            if (s.has(OpcodeTable.HDR_RETH)) {
                assertEquals(s.rethVa(), num(r, "infiniband.reth.va"), where + "RETH VA");
                assertEquals(s.rethRkey() & 0xFFFF_FFFFL, num(r, "infiniband.reth.r_key"), where + "RETH R_Key");
                assertEquals(s.rethLength() & 0xFFFF_FFFFL, num(r, "infiniband.reth.dmalen"), where + "RETH length");
            }
            if (s.has(OpcodeTable.HDR_AETH)) {
                assertEquals(s.aethSyndrome(), num(r, "infiniband.aeth.syndrome"), where + "AETH syndrome");
                assertEquals(s.aethMsn(), num(r, "infiniband.aeth.msn"), where + "AETH MSN");
            }
            if (s.has(OpcodeTable.HDR_ATOMIC_ETH)) {
                // Wireshark shows the AtomicETH VA and R_Key under the RETH field names.
                assertEquals(s.atomicVa(), num(r, "infiniband.reth.va"), where + "AtomicETH VA");
                assertEquals(s.atomicRkey() & 0xFFFF_FFFFL, num(r, "infiniband.reth.r_key"), where + "AtomicETH R_Key");
                assertEquals(s.atomicSwapAdd(), num(r, "infiniband.atomiceth.swapdt"), where + "swap/add");
                assertEquals(s.atomicCompare(), num(r, "infiniband.atomiceth.cmpdt"), where + "compare");
            }
            if (s.has(OpcodeTable.HDR_ATOMIC_ACK_ETH)) {
                assertEquals(s.atomicAckOriginal(), num(r, "infiniband.atomicacketh.origremdt"), where + "orig data");
            }
            if (s.has(OpcodeTable.HDR_IMMDT)) {
                assertEquals(s.immDt(), (int)hex(first(r.get("infiniband.immdt"))), where + "ImmDt");
            }
            if (s.has(OpcodeTable.HDR_IETH)) {
                assertEquals(s.iethRkey(), (int)hex(first(r.get("infiniband.ieth"))), where + "IETH");
            }
            if (s.has(OpcodeTable.HDR_DETH)) {
                assertEquals(s.dethQkey() & 0xFFFF_FFFFL, num(r, "infiniband.deth.q_key"), where + "Q_Key");
                assertEquals(s.dethSrcQp(), num(r, "infiniband.deth.srcqp"), where + "SrcQP");
            }
        }
        assertEquals(1, pfcSeen, "one PFC frame");
    }

    private static boolean noWarningOrError(final String severities) {
        // Wireshark severities: 0x00200000 chat, 0x00400000 note, 0x00600000 warn, 0x00800000 error.
        for (final String s : severities.split(",")) {
            if (!s.isEmpty() && Long.decode(s) >= 0x00600000L) {
                return false;
            }
        }
        return true;
    }

    private static String first(final String v) {
        final int comma = v.indexOf(',');
        return comma < 0 ? v : v.substring(0, comma);
    }

    private static long hex(final String v) {
        return Long.parseUnsignedLong(v, 16);
    }

    /** A numeric field as tshark prints it: decimal, 0x-hex, or True/False. */
    private static long num(final Map<String, String> row, final String field) {
        final String v = first(row.get(field));
        if (v.isEmpty()) {
            throw new AssertionError("tshark did not decode " + field + " (row " + row + ")");
        }
        if (v.equalsIgnoreCase("true")) {
            return 1;
        }
        if (v.equalsIgnoreCase("false")) {
            return 0;
        }
        return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseUnsignedLong(v);
    }
}
