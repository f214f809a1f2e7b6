package org.urdma.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The checkout the tests run in: its root and its Markdown files (build output and hidden directories aside). */
public final class Repository {
    private Repository() {
    }

    /** The reactor's root: the nearest directory up from the module's that holds a pom.xml listing modules. */
    public static Path root() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path pom = d.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && Files.readString(pom).contains("<modules>")) return d;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no reactor pom.xml above " + Path.of("").toAbsolutePath());
    }

    public static List<Path> markdownFiles(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                .filter(p -> !skipped(root.relativize(p))).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Build output (target) and hidden directories (.git, .idea) are not the repository's documents. */
    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.equals("target") || name.startsWith(".")) return true;
        }
        return false;
    }
}
