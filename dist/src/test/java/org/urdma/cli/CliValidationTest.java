package org.urdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;

/** Bad values and user errors: one line on stderr naming the option, a non-zero exit, no stack trace. */
class CliValidationTest {
    @TempDir
    Path dir;

    static CliRun run(String... args) {
        return CliRun.run(args);
    }

    static void assertOneLineError(CliRun r, String mustContain) {
        assertNotEquals(0, r.exit(), r.err());
        List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), "one line expected:\n" + r.err());
        assertTrue(lines.get(0).contains(mustContain), r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), r.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "perf write-bw -s -5|-s/--size: must be 1..2147483647, was -5",
        "perf write-bw -s 0|-s/--size: must be 1..2147483647, was 0",
        "perf write-bw -n 0|-n/--iters: must be 5..100000000, was 0",
        "perf write-bw -n -3|-n/--iters: must be 5..100000000, was -3",
        "perf send-bw -q 0|-q/--qp: must be 1..32, was 0",
        "perf write-bw -m 100|-m/--mtu: must be one of 256, 512, 1024, 2048, 4096, was 100",
        "perf send-lat -t 0|-t/--tx-depth: must be 1..16384, was 0",
        "perf write-bw -D 0|-D/--duration: must be at least 1, was 0",
        "perf write-bw --loss 1.5|--loss: must be 0..1, was 1.5",
        "perf write-bw --link-slots 100|--link-slots: must be a power of two, was 100",
        "perf write-bw -p 70000|-p/--port: must be 1..65535, was 70000",
        "perf write-bw --retry 9|--retry: must be 0..7, was 9",
        "perf veth-bw --rounds 0|--rounds: must be at least 1, was 0",
        "perf lat-vs-tcp -n 0|-n/--iters: must be 5..100000000, was 0",
        "pingpong --link tap:t0 --ip 10.0.0.1/24 -r 1|-r/--rx-depth: must be 2..16384, was 1",
        "pingpong --link tap:t0 --ip 10.0.0.1/24 -m 100|-m/--mtu: must be one of",
        "stat --interval 0|--interval: must be at least 1, was 0",
        "wire sample --framing roce2 --out x.pcap --vlan 9|--vlan: must be 0..7, was 9",
        "perf write-bw -s abc|'abc' is not an int",
        "perf read-bw -b|-b: bidirectional runs are write-bw and send-bw here, not read-bw",
        "perf write-bw -b -a|-b: runs one size by -n iterations here (not with -a or -D)",
        "perf write-bw -b|-b: applies to perftest's exchange",
        "perf send-bw --report-both|--report-both: reports the two directions of a -b run; add -b",
        "perf write-bw -l 4 -n 10|-l: -n (10) must be a multiple of the post list (4)",
        "perf write-lat -l 2|-l: post lists are for bandwidth tests",
        "perf read-bw -I 64|-I: inline data is for the WRITE and SEND bandwidth tests",
        "perf write-bw -I 300|-I/--inline_size: must be 0..256",
        "perf read-bw -o 0|-o/--outs: must be 1..16",
        "perf write-bw -l 4 -n 100|-l: applies to perftest's exchange",
        "perf write-bw --link afpacket:nosuch-if0|no network interface named 'nosuch-if0'",
        "perf write-bw --link ethernet:eth0|memory, afpacket:IF or tap:IF",
        "perf write-bw --ecn ce|--ecn': not-ect, ect0 or ect1, was 'ce'",
        "pingpong --link tap:t0 --ip 10.0.0.1/24 --ecn ect2|--ecn': not-ect, ect0 or ect1, was 'ect2'",
    })
    void aBadValueIsOneLineNamingTheOptionAndExitsNonZero(String args, String message) {
        CliRun r = run(args.split(" "));
        assertOneLineError(r, message);
        assertTrue(r.err().startsWith("urdma " + args.substring(0, args.indexOf(" -")).trim() + ": "), r.err());
    }

    @Test
    void everyNumericOptionOfEveryCommandHasARange() {
        List<String> missing = new ArrayList<>();
        for (CommandLine c : OptionChecks.all(UrdmaCli.commandLine())) {
            List<ArgSpec> args = new ArrayList<>(c.getCommandSpec().options());
            args.addAll(c.getCommandSpec().positionalParameters());
            for (ArgSpec a : args) {
                if (OptionChecks.numeric(a) && OptionChecks.range(a) == null) {
                    missing.add(c.getCommandSpec().qualifiedName() + " " + OptionChecks.name(a));
                }
            }
        }
        assertEquals(List.of(), missing, "numeric options without @Range");
    }

    @Test
    void decodingAFileThatIsNoCaptureIsOneLineWithoutATrace() throws Exception {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "these are not the frames you are looking for\n");
        assertOneLineError(run("wire", "decode", text.toString()), "urdma wire decode: not a capture file: bad magic");
    }

    @Test
    void verboseAddsTheStackTrace() throws Exception {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "these are not the frames you are looking for\n");
        CliRun r = run("wire", "decode", "--verbose", text.toString());
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("\tat org.urdma."), r.err());
        assertTrue(r.err().contains("urdma wire decode: not a capture file: bad magic"), r.err());
    }

    @Test
    void validValuesStillRun() {
        CliRun r = run("perf", "write-bw", "-s", "4096", "-n", "5", "-q", "2", "-m", "1024", "--no-copy-baseline");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().matches("(?s).*\\n 4096\\s+5\\s+.*"), r.out());
    }
}
