package org.urdma.transport.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public API's Javadoc builds without a warning, every doclint group on (it is what a user reads first). */
class ApiJavadocTest {
    @Test
    void apiJavadocHasNoWarnings(@TempDir Path out) {
        ToolProvider javadoc = ToolProvider.findFirst("javadoc").orElseThrow(() -> new AssertionError("javadoc: not in this JDK"));
        StringWriter log = new StringWriter();
        PrintWriter w = new PrintWriter(log);
        int rc = javadoc.run(w, w, "-quiet", "-Xdoclint:all", "-d", out.toString(), "-sourcepath", "src/main/java",
                "-cp", System.getProperty("java.class.path"), "org.urdma.transport.api");
        w.flush();
        assertEquals(0, rc, log.toString());
        assertEquals("", log.toString().strip(), "javadoc of org.urdma.transport.api is not clean");
    }
}
