package org.urdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import picocli.CommandLine;

/**
 * Every command a documentation page shows runs as written (see {@link DocCommand} for what a page's shell block
 * is): {@code ./urdma} lines run in-process and end with the status the page says (0 unless {@code # exit N});
 * {@code ./urdma} commands that need root ({@code sudo}) or are marked {@code # long} must still parse, so their
 * command and options exist; Maven lines must name modules and test classes that exist; a script a line starts must
 * exist and be executable.
 */
class DocCommandsTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private static List<DocCommand> all() {
        return DocCommand.pages(ROOT).stream().flatMap(p -> DocCommand.in(p).stream()).toList();
    }

    @Test
    void thePagesShowRunnableCommandsAndTheReadmeItsMainJob() {
        List<DocCommand> all = all();
        assertTrue(all.stream().filter(DocCommand::runnable).count() >= 20, "too few runnable commands found: " + all);
        assertTrue(all.stream().anyMatch(c -> c.page().getFileName().toString().equals("README.md") && c.runnable()
                && c.text().startsWith("./urdma perf write-bw")), "README.md shows no runnable ./urdma perf write-bw");
    }

    @Test
    void aShellBlockIsReadWithItsCommentsContinuationsAndSeparators() {
        List<DocCommand> cs = DocCommand.of(Path.of("x.md"), 3, "sudo ip netns exec a ./urdma perf write-bw -n 5 & ");
        assertEquals(1, cs.size());
        assertEquals(List.of("perf", "write-bw", "-n", "5"), cs.get(0).urdmaArgs());
        assertTrue(cs.get(0).sudo() && !cs.get(0).runnable());
        DocCommand refused = DocCommand.of(Path.of("x.md"), 4, "./urdma perf write-bw -m 100   # exit 2").get(0);
        assertEquals(2, refused.exit());
        assertTrue(refused.runnable());
        assertEquals(2, DocCommand.of(Path.of("x.md"), 5, "./urdma a && ./urdma b").size());
        assertEquals(List.of("-Dtest=A,B", "x y"), DocCommand.words("-Dtest='A,B' \"x y\""));
        assertEquals(List.of("-q", "test"), DocCommand.of(Path.of("x.md"), 6, "JAVA_HOME=/j mvn -q test").get(0).mavenArgs());
    }

    @TestFactory
    Stream<DynamicTest> everyCommandOnThePagesRunsAsWritten() {
        return all().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> check(c)));
    }

    private static void check(DocCommand c) {
        List<String> urdma = c.urdmaArgs();
        if (urdma != null && c.runnable()) {
            run(c, urdma);
        } else if (urdma != null) {
            parse(c, urdma);
        } else if (c.mavenArgs() != null) {
            maven(c, c.mavenArgs());
        } else if (c.words().get(0).contains("/") && !c.words().get(0).startsWith("/")) {
            Path script = ROOT.resolve(c.words().get(0));
            assertTrue(Files.isExecutable(script), c + ": no executable " + script);
        }
    }

    private static void run(DocCommand c, List<String> args) {
        String[] resolved = args.stream().map(DocCommandsTest::fromRoot).toArray(String[]::new);
        CliRun r = assertTimeoutPreemptively(LIMIT, () -> CliRun.run(resolved), c + ": took longer than " + LIMIT);
        if (r.exit() != c.exit()) {
            fail(c + ": exit " + r.exit() + ", the page says " + c.exit() + "\n" + tail(r.out()) + "\n" + tail(r.err()));
        }
    }

    /** A relative path the page means from the repository's top directory (the tests run in dist/). */
    private static String fromRoot(String arg) {
        if (arg.startsWith("-") || arg.startsWith("/") || !arg.contains("/")) return arg;
        Path p = ROOT.resolve(arg);
        return Files.exists(p) ? p.toString() : arg;
    }

    private static void parse(DocCommand c, List<String> args) {
        try {
            UrdmaCli.commandLine().parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.UnmatchedArgumentException | CommandLine.MissingParameterException e) {
            fail(c + ": " + e.getMessage());
        } catch (CommandLine.ParameterException e) {
            // a value this machine cannot check at parse time (an interface of another namespace): the option exists
        }
    }

    private static void maven(DocCommand c, List<String> args) {
        Set<String> tests = testClasses();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-pl") && i + 1 < args.size()) {
                for (String module : args.get(i + 1).split(",")) {
                    assertTrue(Files.exists(ROOT.resolve(module).resolve("pom.xml")), c + ": no module " + module);
                }
            } else if (a.startsWith("-Dtest=")) {
                for (String name : a.substring("-Dtest=".length()).split(",")) {
                    String cls = name.replaceAll("#.*", "");
                    if (cls.contains("*")) continue;
                    assertTrue(tests.contains(cls), c + ": no test class " + cls);
                }
            }
        }
    }

    private static Set<String> testClasses() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().contains("/src/test/java/") && p.toString().endsWith(".java"))
                    .map(p -> p.getFileName().toString().replace(".java", "")).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(String s) {
        List<String> lines = new ArrayList<>(s.lines().toList());
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }
}
