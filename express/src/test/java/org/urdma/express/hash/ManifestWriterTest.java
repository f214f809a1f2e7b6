package org.urdma.express.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ManifestWriterTest {
    @Test
    void namesWithNewlinesOrBackslashesAreEscapedAsSha256sumWritesThem() {
        assertEquals("ab  plain name", ManifestWriter.line("ab", "plain name"));
        assertEquals("\\ab  new\\nline", ManifestWriter.line("ab", "new\nline"));
        assertEquals("\\ab  back\\\\slash", ManifestWriter.line("ab", "back\\slash"));
    }
}
