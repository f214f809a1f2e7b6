package org.urdma.express.journal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.urdma.express.hash.Sha256;

/**
 * Where a file is written until it is verified: {@code DEST/.urdma-part/NAME.part} with its journal beside it, NAME
 * a hash of the relative path, so any name (newlines, long UTF-8) maps to a short flat file name.
 */
public final class PartFiles {
    public static final String DIRECTORY = ".urdma-part";

    private final Path directory;

    public PartFiles(Path destination) {
        this.directory = destination.resolve(DIRECTORY);
    }

    public Path directory() {
        return directory;
    }

    private String name(String relativePath) {
        return Sha256.hex(Sha256.of(relativePath.getBytes(StandardCharsets.UTF_8))).substring(0, 40);
    }

    public Path part(String relativePath) {
        return directory.resolve(name(relativePath) + ".part");
    }

    public Path journal(String relativePath) {
        return directory.resolve(name(relativePath) + ".journal");
    }
}
