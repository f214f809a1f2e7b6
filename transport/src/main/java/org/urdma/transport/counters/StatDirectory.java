package org.urdma.transport.counters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where counters files live: {@code $URDMA_STAT_DIR}, else {@code /dev/shm/urdma-USER} (memory, like
 * Aeron's default directory), else {@code TMPDIR/urdma-USER}. A switch of {@code urdma switch} writes
 * {@code PREFIX-SW.counters}; an in-process run of a whole topology writes {@code PREFIX.counters}
 * (PREFIX: see {@code TopologyDeployer.prefixFor}); an engine writes {@code engine-DEV-PID.counters}
 * ({@link EngineCounters}) and, when journaling, {@code engine-DEV-PID.journal/}. Readers look in every
 * {@code urdma-*} directory, so a user sees root's switches and engines too.
 */
public final class StatDirectory {
    private static final Path SHM = Path.of("/dev/shm");

    private StatDirectory() {
    }

    /** The directory this process writes counters files into. */
    public static Path forWriting() {
        String env = System.getenv("URDMA_STAT_DIR");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String dir = "urdma-" + System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
        return Files.isDirectory(SHM) && Files.isWritable(SHM) ? SHM.resolve(dir)
            : Path.of(System.getProperty("java.io.tmpdir")).resolve(dir);
    }

    /** The directories a reader searches: {@code $URDMA_STAT_DIR} only, if set; else every urdma-* one. */
    public static List<Path> forReading() {
        String env = System.getenv("URDMA_STAT_DIR");
        if (env != null && !env.isBlank()) {
            return List.of(Path.of(env));
        }
        List<Path> out = new ArrayList<>();
        for (Path base : List.of(SHM, Path.of(System.getProperty("java.io.tmpdir")))) {
            if (!Files.isDirectory(base)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(base, "urdma-*")) {
                for (Path p : ds) {
                    if (Files.isDirectory(p) && !out.contains(p)) {
                        out.add(p);
                    }
                }
            } catch (IOException e) {
                // an unreadable base directory holds nothing for us
            }
        }
        return out;
    }

    /** Counters files in {@code dirs} whose name starts with {@code prefix} (null: all), sorted by name. */
    public static List<Path> find(List<Path> dirs, String prefix) {
        List<Path> out = new ArrayList<>();
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d, "*" + CountersFile.SUFFIX)) {
                for (Path p : ds) {
                    if (prefix == null || p.getFileName().toString().startsWith(prefix)) {
                        out.add(p);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + d, e);
            }
        }
        out.sort(null);
        return out;
    }

    /** Deletes the counters files of a topology prefix ({@code urdma topo down}); returns how many. */
    public static int delete(List<Path> dirs, String prefix) {
        int n = 0;
        for (Path p : find(dirs, prefix + "")) {
            String name = p.getFileName().toString();
            if (name.equals(prefix + CountersFile.SUFFIX) || name.startsWith(prefix + "-")) {
                try {
                    if (Files.deleteIfExists(p)) {
                        n++;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete " + p, e);
                }
            }
        }
        return n;
    }
}
