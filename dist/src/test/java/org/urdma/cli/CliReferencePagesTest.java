package org.urdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.docs.Repository;

/** The committed CLI reference is what the generator makes of today's commands. */
class CliReferencePagesTest {
    static final String REGENERATE = "JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 mvn -B -q -pl dist -am test"
        + " -Dtest=CliReferencePagesTest -Dsurefire.failIfNoSpecifiedTests=false -Durdma.cli.reference.write=true";

    @Test
    void theCommittedPagesAreWhatTheGeneratorMakesOfTheCommands() throws IOException {
        Path dir = Repository.root().resolve("docs/reference/cli");
        if (Boolean.getBoolean("urdma.cli.reference.write")) CliReference.write(dir);
        Map<String, String> pages = CliReference.pages();
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> e : pages.entrySet()) {
            Path p = dir.resolve(e.getKey());
            if (!Files.exists(p) || !Files.readString(p).equals(e.getValue())) stale.add(e.getKey());
        }
        TreeSet<String> extra = new TreeSet<>(committed(dir));
        extra.removeAll(pages.keySet());
        assertTrue(stale.isEmpty() && extra.isEmpty(), "docs/reference/cli differs from the commands' help (changed or missing: "
            + stale + ", of no command: " + extra + "); regenerate from the repository's root with:\n" + REGENERATE);
    }

    @Test
    void everyCommandHasAPageWithItsHelpAndTheIndexLinksThemAll() {
        Map<String, String> pages = CliReference.pages();
        List<picocli.CommandLine> commands = CliReference.commands();
        assertEquals(commands.size() + 1, pages.size(), "a page per command and the index");
        String index = pages.get(CliReference.INDEX);
        for (picocli.CommandLine c : commands) {
            String page = pages.get(CliReference.fileName(c));
            assertTrue(page.startsWith("# " + c.getCommandSpec().qualifiedName() + "\n"), page);
            assertTrue(page.contains("Usage: " + c.getCommandSpec().qualifiedName()), page);
            assertTrue(index.contains("](" + CliReference.fileName(c) + ")"), CliReference.fileName(c));
        }
        assertTrue(pages.containsKey("perf-write-bw.md") && pages.containsKey("topo-up.md"), pages.keySet().toString());
    }

    @Test
    void writingRemovesThePagesOfCommandsThatAreGone(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("no-such-command.md"), "old");
        CliReference.write(dir);
        assertEquals(new TreeSet<>(CliReference.pages().keySet()), new TreeSet<>(committed(dir)));
    }

    private static List<String> committed(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".md")).toList();
        }
    }
}
