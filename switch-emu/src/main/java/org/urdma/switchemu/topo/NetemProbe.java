package org.urdma.switchemu.topo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether this kernel can run {@code tc qdisc ... netem}: sch_netem loaded or built in
 * ({@code /sys/module/sch_netem}), or available as a module ({@code modules.builtin} /
 * {@code modules.dep} under {@code /lib/modules/RELEASE}). Without it, impairment comes from the
 * switch emulator; {@code urdma topo} reports which one it used.
 */
public final class NetemProbe {
    public enum Result {
        /** Loaded or built in. */
        LOADED,
        /** A loadable module exists (modprobe sch_netem). */
        MODULE,
        /** Not in this kernel: use the switch's impairment. */
        ABSENT
    }

    private NetemProbe() {
    }

    public static Result probe() {
        return probe(Path.of("/"), System.getProperty("os.version"));
    }

    /** Probes a filesystem rooted at {@code root} for kernel {@code release} (testable with a fake root). */
    public static Result probe(Path root, String release) {
        if (Files.isDirectory(root.resolve("sys/module/sch_netem"))) {
            return Result.LOADED;
        }
        Path modules = root.resolve("lib/modules").resolve(release);
        if (mentions(modules.resolve("modules.builtin"))) {
            return Result.LOADED;
        }
        if (mentions(modules.resolve("modules.dep"))) {
            return Result.MODULE;
        }
        return Result.ABSENT;
    }

    private static boolean mentions(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try (var lines = Files.lines(file)) {
            return lines.anyMatch(l -> l.contains("/sch_netem.ko"));
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }
}
