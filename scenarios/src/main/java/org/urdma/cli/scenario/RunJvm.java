package org.urdma.cli.scenario;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.urdma.cli.UrdmaCli;

/**
 * The command line of a JVM of its own for one sweep run: this JVM's runtime, class path and options, set up for one
 * single-threaded run on a shared machine. The serial collector and one visible processor keep the run's GC and JIT
 * threads from competing with the runs beside it (a parallel collector per run would use every core at each pause),
 * and the heap is limited so that the runs at once fit the machine's memory.
 */
final class RunJvm {
    /** The heap a run gets unless told: its share of 3/4 of the machine's memory, at most this. */
    private static final long MAX_DEFAULT_HEAP_MB = 8192;

    private RunJvm() {
    }

    /** The command that runs the CLI with {@code args} in a JVM of {@code heapMb} MB of heap. */
    static List<String> command(List<String> args, long heapMb) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!replaced(a)) cmd.add(a);
        }
        cmd.addAll(List.of("-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1", "-Xmx" + heapMb + "m"));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), UrdmaCli.class.getName()));
        cmd.addAll(args);
        return cmd;
    }

    /** This JVM's options that a run's JVM sets for itself or must not inherit (a debugger, a recording). */
    private static boolean replaced(String option) {
        return option.startsWith("-Xmx") || option.startsWith("-Xms") || option.startsWith("-XX:MaxRAM")
                || option.matches("-XX:[+-]Use\\w*GC") || option.startsWith("-XX:ActiveProcessorCount")
                || option.startsWith("-XX:CICompilerCount") || option.startsWith("-agentlib") || option.startsWith("-javaagent")
                || option.startsWith("-XX:StartFlightRecording") || option.startsWith("-XX:FlightRecorderOptions");
    }

    /** Each run's heap when {@code parallel} run at once: 3/4 of physical memory shared among them, capped. */
    static long defaultHeapMb(int parallel) {
        long total = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        return Math.max(256, Math.min(MAX_DEFAULT_HEAP_MB, total * 3 / 4 / (1L << 20) / Math.max(1, parallel)));
    }
}
