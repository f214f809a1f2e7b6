package org.urdma.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * Runs the JMH benchmarks packed into this jar, with JMH's own options passed through
 * (e.g. {@code urdma jmh -prof gc -f 1 Icrc}); {@code urdma jmh -l} lists them.
 */
@Command(
        name = "jmh",
        mixinStandardHelpOptions = false,
        description = {
            "Run the JMH micro-benchmarks in this jar; every argument goes to JMH.",
            "Examples: urdma jmh -l    urdma jmh -prof gc -f 1 -wi 3 -i 5 IcrcBenchmark",
            "Use 'urdma jmh -h' for JMH's own options."
        })
final class JmhCommand implements Callable<Integer> {

    /** Everything after {@code jmh}, in order: JMH parses it. */
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        // JMH forks benchmark JVMs with this JVM's arguments, so FFM/Unsafe flags carry over.
        org.openjdk.jmh.Main.main(args.toArray(String[]::new));
        return 0;
    }
}
