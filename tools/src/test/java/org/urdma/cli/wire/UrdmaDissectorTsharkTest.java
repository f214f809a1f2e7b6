package org.urdma.cli.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.IntFunction;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.CliRun;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.SackEth;

/**
 * The Lua dissector {@code urdma wire dissector} writes reads, in tshark, every urdma field of frames with INT stacks
 * and WAN-mode headers (RoCEv1, RoCEv2 over IPv4 with and without a VLAN tag, RoCEv2 over IPv6) exactly as urdma's own
 * codecs decode them, and adds nothing to frames without them.
 */
class UrdmaDissectorTsharkTest {
    /** The dissector's fields this test compares, in the order tshark prints them. */
    private static final String[] FIELDS = {
        "urdma.resv7", "urdma.payload_len", "urdma.ueth.flags", "urdma.ts.t1", "urdma.ts.tr", "urdma.deth.qkey",
        "urdma.deth.srcqp", "urdma.reth.va", "urdma.reth.rkey", "urdma.reth.dmalen", "urdma.aeth.syndrome",
        "urdma.aeth.msn", "urdma.aeth_ext.t3", "urdma.aeth_ext.ts", "urdma.aeth_ext.psn", "urdma.sack.count",
        "urdma.sack.loss", "urdma.sack.cumulative", "urdma.sack.range.start", "urdma.sack.range.length",
        "urdma.atomic.va", "urdma.atomic.rkey", "urdma.atomic.swap_add", "urdma.atomic.compare",
        "urdma.atomic_ack.orig", "urdma.immdt", "urdma.ieth.rkey", "urdma.fec.base", "urdma.fec.m", "urdma.fec.r",
        "urdma.fec.index", "urdma.fec.len_xor", "urdma.int.flags", "urdma.int.hops", "urdma.int.hop.rate_code",
        "urdma.int.hop.rate", "urdma.int.hop.qlen", "urdma.int.hop.tx", "urdma.int.hop.ts"};

    @TempDir
    Path dir;

    @BeforeAll
    static void tshark() {
        Tshark.requireInstalled();
    }

    @Test
    void everyUrdmaFieldReadsAsUrdmasCodecsDecodeIt() throws Exception {
        List<byte[]> frames = new ArrayList<>();
        for (SampleFrames.Sample s : SampleFrames.generate(FramingKind.ROCE2, -1, 0, 7, true)) frames.add(s.frame());
        for (SampleFrames.Sample s : SampleFrames.generate(FramingKind.ROCE2, 3, 12, 8, true)) frames.add(s.frame());
        for (SampleFrames.Sample s : SampleFrames.generate(FramingKind.ROCE1, -1, 0, 9, true)) frames.add(s.frame());
        frames.addAll(overIpv6(SampleFrames.generate(FramingKind.ROCE2, -1, 0, 10, true)));
        Path lua = dir.resolve("plugins/urdma.lua");
        CliRun written = CliRun.run("wire", "dissector", "--out", lua.toString());
        assertEquals(0, written.exit(), written.err());
        Path pcap = dir.resolve("urdma.pcap");
        try (PcapWriter w = new PcapWriter(pcap)) {
            long ts = 0;
            for (byte[] f : frames) w.write(ts += 1000, new UnsafeBuffer(f), 0, f.length);
        }
        List<String> fields = new ArrayList<>(List.of(FIELDS));
        fields.add("_ws.expert.message");
        List<Map<String, String>> rows = Tshark.fields(pcap, List.of("-X", "lua_script:" + lua), fields.toArray(String[]::new));
        assertEquals(frames.size(), rows.size(), "tshark frame count");
        AnyFrameDecoder decoder = new AnyFrameDecoder();
        Packet p = new Packet();
        int stacks = 0;
        int hops = 0;
        int wan = 0;
        int sackRanges = 0;
        for (int i = 0; i < frames.size(); i++) {
            UnsafeBuffer b = new UnsafeBuffer(frames.get(i));
            Map<String, String> row = rows.get(i);
            String expert = row.remove("_ws.expert.message");
            if (decoder.classify(b, 0, b.capacity()).framing() == null) { // PFC, PAUSE
                assertEquals(expected(null, b), row, "frame " + (i + 1));
                continue;
            }
            assertEquals(DecodeStatus.OK, decoder.decode(b, 0, b.capacity(), p), "frame " + (i + 1));
            String where = "frame " + (i + 1) + " " + p.framing.cliName() + (p.ipv6 ? "/ipv6" : "") + " "
                + org.urdma.transport.wire.Opcode.name(p.opcode);
            assertFalse(expert.contains("urdma:") || expert.contains("Lua Error"), where + ": " + expert);
            assertEquals(expected(p, b), row, where);
            stacks += (p.resv7 & OpcodeTable.RESV7_INT) != 0 ? 1 : 0;
            hops += (p.resv7 & OpcodeTable.RESV7_INT) != 0 ? IntStack.hops(p.intStack, 0) : 0;
            wan += (p.resv7 & OpcodeTable.RESV7_URDMA) != 0 ? 1 : 0;
            sackRanges += (p.headerMask & OpcodeTable.HDR_SACK) != 0 ? p.sackCount : 0;
        }
        assertTrue(stacks > 40 && hops > 100 && wan > 80 && sackRanges >= 4,
            stacks + " INT stacks with " + hops + " hops, " + wan + " WAN-mode frames, " + sackRanges + " SACK ranges");
    }

    @Test
    void aCaptureCutShortDecodesWhatItHoldsWithoutErrors() throws Exception {
        Path lua = dir.resolve("urdma.lua");
        assertEquals(0, CliRun.run("wire", "dissector", "--out", lua.toString()).exit());
        Path pcap = dir.resolve("cut.pcap");
        int frames = 0;
        try (PcapWriter w = new PcapWriter(pcap)) {
            long ts = 0;
            for (SampleFrames.Sample s : SampleFrames.generate(FramingKind.ROCE2, -1, 0, 11, true)) {
                w.write(ts += 1000, new UnsafeBuffer(s.frame()), 0, Math.min(s.frame().length, 96)); // tcpdump -s 96
                frames++;
            }
        }
        List<Map<String, String>> rows = Tshark.fields(pcap, List.of("-X", "lua_script:" + lua), "urdma.resv7",
            "urdma.int.hops", "_ws.expert.message");
        assertEquals(frames, rows.size());
        int urdma = 0;
        for (Map<String, String> r : rows) {
            String expert = r.get("_ws.expert.message");
            assertFalse(expert.contains("Lua Error") || expert.contains("runs past"), r.toString());
            assertEquals("", r.get("urdma.int.hops"), "no stack in 96 bytes: " + r);
            urdma += r.get("urdma.resv7").isEmpty() ? 0 : 1;
        }
        assertTrue(urdma > 50, "frames with urdma fields still found: " + urdma);
    }

    @Test
    void loadedTwiceItDecodesOnceWithoutErrors() throws Exception {
        Path lua = dir.resolve("urdma.lua");
        Path copy = dir.resolve("plugins/urdma.lua"); // as from a plugin directory and by -X lua_script: together
        assertEquals(0, CliRun.run("wire", "dissector", "--out", lua.toString()).exit());
        assertEquals(0, CliRun.run("wire", "dissector", "--out", copy.toString()).exit());
        Path pcap = dir.resolve("twice.pcap");
        List<SampleFrames.Sample> samples = SampleFrames.generate(FramingKind.ROCE2, -1, 0, 12, true);
        try (PcapWriter w = new PcapWriter(pcap)) {
            long ts = 0;
            for (SampleFrames.Sample s : samples) w.write(ts += 1000, new UnsafeBuffer(s.frame()), 0, s.frame().length);
        }
        List<Map<String, String>> rows = Tshark.fields(pcap, List.of("-X", "lua_script:" + lua, "-X", "lua_script:" + copy),
            "urdma.resv7", "_ws.expert.message");
        assertEquals(samples.size(), rows.size(), "tshark ran and read every frame");
        int urdma = 0;
        for (Map<String, String> r : rows) {
            assertFalse(r.get("_ws.expert.message").contains("Lua Error"), r.toString());
            assertFalse(r.get("urdma.resv7").contains(","), "one urdma tree per frame: " + r);
            urdma += r.get("urdma.resv7").isEmpty() ? 0 : 1;
        }
        assertTrue(urdma > 50, "frames with urdma fields: " + urdma);
        Process p = new ProcessBuilder("tshark", "-n", "-X", "lua_script:" + lua, "-X", "lua_script:" + copy, "-r",
            pcap.toString(), "-c", "1").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "tshark finished");
        assertFalse(out.contains("Lua: Error"), "the second copy loads without an error: " + out);
    }

    @Test
    void theCommandPrintsTheScriptItWrites() throws Exception {
        CliRun printed = CliRun.run("wire", "dissector");
        assertEquals(0, printed.exit(), printed.err());
        assertTrue(printed.out().contains("register_postdissector(urdma)"), printed.out());
        Path lua = dir.resolve("urdma.lua");
        assertEquals(0, CliRun.run("wire", "dissector", "--out", lua.toString()).exit());
        assertEquals(printed.out(), Files.readString(lua));
    }

    /** What the dissector should print for a frame urdma decoded into {@code p}: nothing without urdma fields. */
    private static Map<String, String> expected(Packet p, UnsafeBuffer frame) {
        Map<String, String> e = new LinkedHashMap<>();
        for (String f : FIELDS) e.put(f, "");
        if (p == null || (p.resv7 & (OpcodeTable.RESV7_URDMA | OpcodeTable.RESV7_INT)) == 0) return e;
        int m = p.headerMask;
        e.put("urdma.resv7", hex(p.resv7, 2));
        if (OpcodeTable.has(p.opcode, OpcodeTable.PAYLOAD)) e.put("urdma.payload_len", dec(p.payloadLength));
        if ((m & OpcodeTable.HDR_UETH) != 0) e.put("urdma.ueth.flags", hex(p.uethFlags, 2));
        if ((m & OpcodeTable.HDR_TS) != 0) {
            e.put("urdma.ts.t1", Integer.toUnsignedString(p.tsT1));
            e.put("urdma.ts.tr", Integer.toUnsignedString(p.tsTr));
        }
        if ((m & OpcodeTable.HDR_DETH) != 0) {
            e.put("urdma.deth.qkey", hex(p.dethQkey, 8));
            e.put("urdma.deth.srcqp", hex(p.dethSrcQp, 6));
        }
        if ((m & OpcodeTable.HDR_RETH) != 0) {
            e.put("urdma.reth.va", String.format("0x%016x", p.rethVa));
            e.put("urdma.reth.rkey", hex(p.rethRkey, 8));
            e.put("urdma.reth.dmalen", Integer.toUnsignedString(p.rethDmaLength));
        }
        if ((m & OpcodeTable.HDR_AETH) != 0) {
            e.put("urdma.aeth.syndrome", hex(p.aethSyndrome, 2));
            e.put("urdma.aeth.msn", dec(p.aethMsn));
        }
        if ((m & OpcodeTable.HDR_AETH_EXT) != 0) {
            e.put("urdma.aeth_ext.t3", Integer.toUnsignedString(p.aethExtT3));
            e.put("urdma.aeth_ext.ts", Integer.toUnsignedString(p.aethExtTs));
            e.put("urdma.aeth_ext.psn", dec(p.aethExtPsn));
        }
        if ((m & OpcodeTable.HDR_SACK) != 0) {
            e.put("urdma.sack.count", dec(p.sackCount));
            e.put("urdma.sack.loss", dec(SackEth.loss(frame, p.headerOffsets[OpcodeTable.index(OpcodeTable.HDR_SACK)])));
            e.put("urdma.sack.cumulative", dec(p.sackCumulativePsn));
            e.put("urdma.sack.range.start", join(p.sackCount, i -> dec(p.sackRangeStart[i])));
            e.put("urdma.sack.range.length", join(p.sackCount, i -> dec(p.sackRangeLength[i])));
        }
        if ((m & OpcodeTable.HDR_ATOMIC_ETH) != 0) {
            e.put("urdma.atomic.va", String.format("0x%016x", p.atomicVa));
            e.put("urdma.atomic.rkey", hex(p.atomicRkey, 8));
            e.put("urdma.atomic.swap_add", String.format("0x%016x", p.atomicSwapAdd));
            e.put("urdma.atomic.compare", String.format("0x%016x", p.atomicCompare));
        }
        if ((m & OpcodeTable.HDR_ATOMIC_ACK_ETH) != 0) {
            e.put("urdma.atomic_ack.orig", String.format("0x%016x", p.atomicAckOriginalData));
        }
        if ((m & OpcodeTable.HDR_IMMDT) != 0) e.put("urdma.immdt", hex(p.immDt, 8));
        if ((m & OpcodeTable.HDR_IETH) != 0) e.put("urdma.ieth.rkey", hex(p.iethRkey, 8));
        if ((m & OpcodeTable.HDR_FEC_ETH) != 0) {
            e.put("urdma.fec.base", dec(p.fecBasePsn));
            e.put("urdma.fec.m", dec(p.fecM));
            e.put("urdma.fec.r", dec(p.fecR));
            e.put("urdma.fec.index", dec(p.fecIndex));
            e.put("urdma.fec.len_xor", hex(p.fecLengthXor, 4));
        }
        if ((p.resv7 & OpcodeTable.RESV7_INT) != 0) {
            UnsafeBuffer s = p.intStack;
            int n = IntStack.hops(s, 0);
            e.put("urdma.int.flags", hex(IntStack.flags(s, 0), 2));
            e.put("urdma.int.hops", dec(n));
            e.put("urdma.int.hop.rate_code", join(n, i -> dec(IntStack.hopWord(s, 0, i) >>> 60)));
            e.put("urdma.int.hop.rate", join(n, i -> dec(IntStack.rateBps(s, 0, i) / 1_000_000_000L)));
            e.put("urdma.int.hop.qlen", join(n, i -> dec(IntStack.queueBytes(s, 0, i))));
            e.put("urdma.int.hop.tx", join(n, i -> dec(IntStack.txUnits(s, 0, i) * IntStack.UNIT)));
            e.put("urdma.int.hop.ts", join(n, i -> dec(IntStack.timeNs(s, 0, i))));
        }
        return e;
    }

    /** The RoCEv2 frames with urdma fields again, over IPv6 between documentation addresses (2001:db8::/32). */
    private static List<byte[]> overIpv6(List<SampleFrames.Sample> samples) {
        AnyFrameDecoder decoder = new AnyFrameDecoder();
        Packet p = new Packet();
        UnsafeBuffer out = new UnsafeBuffer(new byte[SampleFrames.MAX_FRAME]);
        List<byte[]> frames = new ArrayList<>();
        for (SampleFrames.Sample s : samples) {
            UnsafeBuffer b = new UnsafeBuffer(s.frame());
            if (decoder.decode(b, 0, b.capacity(), p) != DecodeStatus.OK
                || (p.resv7 & (OpcodeTable.RESV7_URDMA | OpcodeTable.RESV7_INT)) == 0) {
                continue;
            }
            p.ipv6 = true;
            p.trafficClass = 0x02;
            p.flowLabel = p.psn & 0xF_FFFF;
            p.hopLimit = 64;
            p.sgidHi = 0x2001_0db8_0000_0000L;
            p.sgidLo = 1;
            p.dgidHi = 0x2001_0db8_0000_0000L;
            p.dgidLo = 2;
            int len = Framings.of(FramingKind.ROCE2).encode(p, out, 0);
            byte[] f = new byte[len];
            out.getBytes(0, f);
            frames.add(f);
        }
        return frames;
    }

    private static String join(int n, IntFunction<String> value) {
        StringJoiner j = new StringJoiner(",");
        for (int i = 0; i < n; i++) j.add(value.apply(i));
        return j.toString();
    }

    private static String dec(long v) {
        return Long.toString(v);
    }

    private static String hex(int v, int digits) {
        return String.format("0x%0" + digits + "x", v);
    }
}
