package org.urdma.express.hash;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lines {@code sha256sum -c} checks: {@code HEX  PATH}; a name with a backslash or newline is written as GNU
 * coreutils writes it, the line starting with a backslash and those characters escaped.
 */
public final class ManifestWriter {
    private final TreeMap<String, String> lines = new TreeMap<>();

    /** Records one file's whole-content SHA-256 under its path relative to the destination directory. */
    public synchronized void add(String path, byte[] sha256) {
        lines.put(path, Sha256.hex(sha256));
    }

    public synchronized Map<String, String> entries() {
        return new TreeMap<>(lines);
    }

    /** The line for one file, without its newline. */
    public static String line(String hex, String path) {
        boolean escape = path.indexOf('\\') >= 0 || path.indexOf('\n') >= 0 || path.indexOf('\r') >= 0;
        if (!escape) return hex + "  " + path;
        String p = path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
        return "\\" + hex + "  " + p;
    }

    public synchronized void write(Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Map.Entry<String, String> e : lines.entrySet()) w.write(line(e.getValue(), e.getKey()) + "\n");
        }
    }
}
