package org.urdma.cli;

import java.util.Comparator;
import java.util.ServiceLoader;
import picocli.CommandLine;

/**
 * Commands a module above this one adds to {@code urdma} (the benchmarks, the scenarios), found with
 * {@link ServiceLoader} so that this module need not depend on them.
 */
public interface CliExtension {

    /** Adds this module's commands to the {@code urdma} command line {@code urdma}. */
    void addTo(CommandLine urdma);

    /** Adds every extension on the class path, in the order of their class names so the help reads the same each run. */
    static void addAll(CommandLine urdma) {
        ServiceLoader.load(CliExtension.class).stream()
            .sorted(Comparator.comparing(p -> p.type().getName()))
            .forEach(p -> p.get().addTo(urdma));
    }
}
