package org.urdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's "Use urdma from Java" sample is Hello's code, which compiles and runs. */
class ReadmeSampleTest {
    @Test
    void helloSendsItsGreeting() throws Exception {
        assertEquals("hello, urdma", Hello.run());
    }

    @Test
    void readmeShowsHellosCodeVerbatim() throws Exception {
        String src = Files.readString(Path.of("src/main/java/org/urdma/examples/Hello.java"));
        String sample = src.substring(src.indexOf("// README:begin\n") + "// README:begin\n".length(), src.indexOf("        // README:end"));
        String readme = Files.readString(Path.of("../README.md"));
        assertTrue(readme.contains(sample.stripTrailing().stripIndent()), "README.md lacks Hello.java's sample, as it is now:\n" + sample.stripTrailing().stripIndent());
    }
}
