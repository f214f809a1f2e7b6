package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.CliRun;
import org.urdma.transport.pcap.PcapReader;

/** --pcap/--pcapng on the memory link capture its frames; options the chosen link does not use are refused. */
class PerfCaptureAndOptionsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"--pcap", "--pcapng"})
    void theMemoryLinkWritesEveryFrameToTheCaptureAndTheyDecode(String option) throws Exception {
        Path file = dir.resolve("write-bw." + option.substring(2));
        var r = CliRun.run("perf", "write-bw", "-n", "20", "-s", "4096", "-m", "1024", "--no-copy-baseline",
                option, file.toString());
        assertEquals(0, r.exit(), r.err());
        long frames = 0;
        try (PcapReader rd = new PcapReader(file)) {
            assertEquals(option.equals("--pcapng"), rd.pcapng());
            while (rd.next()) frames++;
        }
        // warm-up and measured phases: 4 frames per 4 KiB WRITE at MTU 1024, and the ACKs
        assertTrue(frames >= 2 * 20 * 4, "frames: " + frames);
        var d = CliRun.run("wire", "decode", "-q", file.toString());
        assertEquals(0, d.exit(), d.out() + d.err());
        Matcher m = Pattern.compile("(\\d+) frames: (\\d+) valid, 0 invalid, 0 other").matcher(d.out());
        assertTrue(m.find() && Long.parseLong(m.group(1)) == frames, d.out());
        assertTrue(d.out().contains(frames + " frames: " + frames + " valid"), d.out());
    }

    @ParameterizedTest
    @CsvSource({"not-ect,0", "ect1,1", "ect0,2"})
    void ecnSetsTheCodepointOfEveryRoce2FrameOnTheMemoryLink(String ecn, int bits) throws Exception {
        Path file = dir.resolve("ecn-" + ecn + ".pcap");
        var r = CliRun.run("perf", "write-bw", "-n", "5", "-s", "4096", "--no-copy-baseline", "--ecn", ecn,
                "--pcap", file.toString());
        assertEquals(0, r.exit(), r.err());
        long frames = 0;
        try (PcapReader rd = new PcapReader(file)) {
            while (rd.next()) {
                assertEquals(0x0800, rd.buffer().getShort(12, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF, "IPv4");
                assertEquals(bits, rd.buffer().getByte(15) & 3, "ECN bits of frame " + rd.frameNumber());
                frames++;
            }
        }
        assertTrue(frames > 20, "frames: " + frames);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "perf write-bw --ip 10.0.0.1/24|--ip: applies to --link afpacket:IF or tap:IF, not the memory link",
        "perf send-bw --exchange urdma|--exchange: applies to --link afpacket:IF or tap:IF",
        "perf write-bw -p 18516|-p/--port: applies to --link afpacket:IF or tap:IF",
        "perf write-bw --rate_limit 2|--rate_limit: applies to --link afpacket:IF or tap:IF",
        "perf write-bw 10.0.0.2|PEER (10.0.0.2): --link memory runs both sides in this process",
        "perf write-bw --link afpacket:lo --ip 10.0.0.1/24 --loss 0.1|--loss: applies to --link memory only, not afpacket:lo",
        "perf write-bw --pcap a.pcap --pcapng b.pcapng|--pcap and --pcapng: give one of them",
        "perf send-lat --warmup-iters 100|--warmup-iters: applies to the latency tests over perftest's exchange",
        "perf write-bw --warmup-iters 100|--warmup-iters: applies to the latency tests over perftest's exchange",
    })
    void anOptionTheLinkDoesNotUseIsRefusedNamingIt(String args, String message) {
        var r = CliRun.run(args.split(" "));
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains(message), r.err());
        assertEquals(1, r.err().lines().filter(l -> !l.isBlank()).count(), r.err());
    }
}
