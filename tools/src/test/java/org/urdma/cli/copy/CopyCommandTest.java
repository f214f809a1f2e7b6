package org.urdma.cli.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.CliRun;

class CopyCommandTest {
    @TempDir
    Path tmp;

    @Test
    void aLocalCopyRunsOverTheMemoryLinkAndPrintsItsJsonSummary() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("tree/sub"));
        Files.write(src.resolve("a"), new byte[300_000]);
        Files.write(src.resolve("b"), "hello".getBytes());
        Path dst = tmp.resolve("out");
        CliRun r = CliRun.run("copy", "--json", "--block-size", "64K", "--mem", "1M", "--loss", "0.01", "--manifest", tmp.resolve("m").toString(),
                tmp.resolve("tree").toString(), dst.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("{\"exit\":0,\"transport\":\"wan "), r.out());
        assertTrue(r.out().contains("\"filesVerified\":4,"), r.out());
        assertEquals("hello", Files.readString(dst.resolve("tree/sub/b")));
        assertEquals(2, Files.readAllLines(tmp.resolve("m")).size());
    }

    @Test
    void aNameTheServerRefusesFailsTheCopyAndIsListedInTheFailedFile() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("tree"));
        Files.createSymbolicLink(src.resolve("escape"), Path.of("/etc"));
        Files.write(src.resolve("fine"), "ok".getBytes());
        // small staging memory: the default 256M per side is allocated and registered for two bytes
        CliRun r = CliRun.run("copy", "--quiet", "--block-size", "64K", "--mem", "1M", "--failed", tmp.resolve("failed").toString(), src.toString(),
                tmp.resolve("out").toString());
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains("urdma copy: failed: tree/escape: refused: symlink 'tree/escape' -> '/etc': absolute target leads outside the root"), r.err());
        assertEquals(java.util.List.of("tree/escape: refused: symlink 'tree/escape' -> '/etc': absolute target leads outside the root"),
                Files.readAllLines(tmp.resolve("failed")));
        assertEquals("ok", Files.readString(tmp.resolve("out/tree/fine")));
    }

    @Test
    void badValuesAreRefusedInOneLineNamingTheOption() {
        CliRun r = CliRun.run("copy", "--verify", "always", tmp.toString(), tmp.resolve("x").toString());
        assertEquals(2, r.exit());
        assertEquals("urdma copy: --verify: reread, was 'always'", r.err().trim());
        r = CliRun.run("copy", "--mem", "lots", tmp.toString(), tmp.resolve("x").toString());
        assertEquals("urdma copy: --mem: a size such as 64M or 1G, was 'lots'", r.err().trim());
        r = CliRun.run("copy", "--rate", "fast", tmp.toString(), tmp.resolve("x").toString());
        assertEquals("urdma copy: --rate: a rate such as 800M or 1G (bit/s), was 'fast'", r.err().trim());
        r = CliRun.run("copy", "--rate", "1g,ref=2g", tmp.toString(), tmp.resolve("x").toString());
        assertEquals("urdma copy: --rate: a rate such as 800M or 1G (bit/s), was '1g,ref=2g'", r.err().trim());
        r = CliRun.run("copy", "--skip-existing", "mtime", tmp.toString(), tmp.resolve("x").toString());
        assertEquals("urdma copy: --skip-existing: size or checksum, was 'mtime'", r.err().trim());
        r = CliRun.run("copy", "--rate", "1G", "--max-rate", "500M", tmp.toString(), tmp.resolve("x").toString());
        assertEquals(2, r.exit());
        assertEquals("urdma copy: --max-rate: at least --rate (1G), was '500M'", r.err().trim());
        r = CliRun.run("copy", "--max-rate", "quick", tmp.toString(), tmp.resolve("x").toString());
        assertEquals("urdma copy: --max-rate: a rate such as 800M or 1G (bit/s), was 'quick'", r.err().trim());
        r = CliRun.run("copy", tmp.resolve("missing").toString(), tmp.resolve("x").toString());
        assertEquals("urdma copy: SRC: no such file or directory: " + tmp.resolve("missing"), r.err().trim());
    }

    @Test
    void deleteSkipExistingChecksumAndMaxRateReachTheCopyAndItsSummary() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("tree"));
        Files.write(src.resolve("a"), new byte[300_000]);
        Path dst = Files.createDirectories(tmp.resolve("out/tree"));
        Files.write(dst.resolve("a"), new byte[300_000]);
        Files.writeString(dst.resolve("stale"), "x");
        CliRun r = CliRun.run("copy", "--json", "--block-size", "64K", "--mem", "1M", "--skip-existing", "checksum", "--delete",
                "--rate", "200M", "--max-rate", "1G", src.toString(), tmp.resolve("out").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"skipped\":1,\"deleted\":1,") && r.out().contains("\"bytesSent\":0,"), r.out());
        assertTrue(r.out().contains("cc=rrcc,ref=200000000,max=1000000000"), r.out());
        assertTrue(Files.notExists(dst.resolve("stale")));
    }

    @Test
    void countersAndJournalAreWrittenAsPerfWritesThemAndTheJournalOutlivesTheCopy() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("tree"));
        byte[] data = new byte[2 << 20]; // not zeros: an all-zero block is not sent, and ~512 packets all but surely lose some at 5 %
        new java.util.Random(7).nextBytes(data);
        Files.write(src.resolve("a"), data);
        Path journal = tmp.resolve("copy.journal");
        CliRun r = CliRun.run("copy", "--quiet", "--block-size", "64K", "--mem", "1M", "--loss", "0.05", "--counters", tmp.toString(),
                "--journal", journal.toString(), src.toString(), tmp.resolve("out").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("urdma copy: Counters        : " + tmp.resolve("engine-urdma0-")), r.err());
        assertTrue(r.err().contains("urdma copy: Journal         : " + journal), r.err());
        CliRun states = CliRun.run("journal", journal.toString(), "--type", "QP_STATE");
        assertEquals(0, states.exit(), states.err());
        assertTrue(states.out().lines().filter(l -> l.contains("to=RTS")).count() >= 2, "both ends' QPs reached RTS: " + states.out());
        CliRun resent = CliRun.run("journal", journal.toString(), "--type", "RETRANSMIT");
        assertTrue(resent.out().lines().count() > 0, "5 % loss made retransmissions, journalled: " + resent.out() + resent.err());
    }

    @Test
    void aPullRefusesWhatItCannotDoInOneLineNamingTheOption() {
        CliRun r = CliRun.run("copy", "h:a", "g:b", tmp.toString());
        assertEquals(2, r.exit());
        assertEquals("urdma copy: SRC: 'g:b': a pull takes every SRC from h:", r.err().trim());
        r = CliRun.run("copy", "h:a", "h:b");
        assertEquals("urdma copy: DST: 'h:b': a pull writes into a local directory", r.err().trim());
        r = CliRun.run("copy", "h:a", tmp.toString());
        assertEquals("urdma copy: --link: HOST:SRC needs afpacket:IF or tap:IF (memory works only in one process)", r.err().trim());
        r = CliRun.run("copy", tmp.toString(), "h:a", tmp.resolve("x").toString());
        assertEquals("urdma copy: SRC: 'h:a' is remote but '" + tmp + "' is local; pull or push, not both", r.err().trim());
    }

    @Test
    void aLocalCopyOverLoopbackTcpRunsTheSameToolAndNamesItsTransport() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("tree/sub"));
        Files.write(src.resolve("a"), new byte[700_000]);
        Files.write(src.resolve("b"), "hello".getBytes());
        Files.createSymbolicLink(src.resolve("l"), Path.of("b"));
        CliRun r = CliRun.run("copy", "--json", "--transport", "tcp", "--cc", "reno", "--streams", "2", "--block-size", "64K", "--mem", "1M",
                "--socket-buffer", "256K", tmp.resolve("tree").toString(), tmp.resolve("out").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("{\"exit\":0,\"transport\":\"tcp cc=reno streams=2\""), r.out());
        assertTrue(r.out().contains("\"filesVerified\":5,"), r.out());
        assertEquals("hello", Files.readString(tmp.resolve("out/tree/sub/b")));
        assertEquals(Path.of("b"), Files.readSymbolicLink(tmp.resolve("out/tree/sub/l")));
    }

    @Test
    void transportOptionsOfTheWrongTransportOrOutOfRangeAreRefusedInOneLine() {
        String from = tmp.toString();
        String to = tmp.resolve("x").toString();
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--cc", "warp", from, to),
                "urdma copy: --cc: 'warp' is not a congestion control this kernel offers (tcp_available_congestion_control: ");
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--streams", "0", from, to), "urdma copy: --streams: must be 1..64, was 0");
        assertOneLine(CliRun.run("copy", "--cc", "bbr", from, to), "urdma copy: --cc: sets kernel TCP's congestion control; it needs --transport tcp");
        assertOneLine(CliRun.run("copy", "--streams", "4", from, to), "urdma copy: --streams: stripes blocks over TCP connections; it needs --transport tcp");
        assertOneLine(CliRun.run("copy", "--transport", "udp", from, to), "urdma copy: --transport: rdma or tcp, was 'udp'");
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--rate", "1G", from, to), "urdma copy: --rate: the WAN mode's; not for --transport tcp");
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--max-rate", "1G", from, to), "urdma copy: --max-rate: the WAN mode's; not for --transport tcp");
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--journal", tmp.resolve("j").toString(), from, to), "urdma copy: --counters/--journal: the RDMA engine's; not for --transport tcp");
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--socket-buffer", "1K", from, to), "urdma copy: --socket-buffer: at least 64K, was 1024");
        assertOneLine(CliRun.run("copy", "--transport", "tcp", "--port", "1", from, "127.0.0.1:x"), "urdma copy: tcp 127.0.0.1:1: Connection refused");
        assertOneLine(CliRun.run("serve", "--root", from), "urdma serve: --link: serve needs afpacket:IF or tap:IF (or --transport tcp)");
        assertOneLine(CliRun.run("serve", "--root", from, "--transport", "tcp", "--link", "afpacket:eth0"), "urdma serve: --link: RDMA's;");
        assertOneLine(CliRun.run("serve", "--root", from, "--transport", "tcp", "--port", "9000"), "urdma serve: --port: RDMA's connection setup port;");
    }

    private static void assertOneLine(CliRun r, String prefix) {
        assertEquals(2, r.exit(), r.err());
        java.util.List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).startsWith(prefix), r.err());
        assertTrue(!r.err().contains("\tat ") && !r.err().contains("Exception"), r.err());
    }

    @Test
    void theHelpSaysPlainlyThatDataIsNotEncrypted() {
        for (String command : new String[] {"copy", "serve"}) {
            CliRun r = CliRun.run(command, "--help");
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().replaceAll("\\s+", " ").contains("Data is NOT encrypted on the wire"), r.out());
        }
    }
}
