package org.urdma.scenario.wan;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * N CPU hogs beside a scenario's run, as {@code yes > /dev/null} would be: each a child process spinning a core at
 * nice 0, started before the first cell and stopped (by its own pid) when closed, so the contended case is
 * reproducible rather than whatever else the machine happens to run.
 */
public final class CpuHogs implements AutoCloseable {
    private final List<Process> hogs;

    private CpuHogs(List<Process> hogs) {
        this.hogs = hogs;
    }

    /** Starts {@code n} hogs (none for 0). */
    public static CpuHogs start(int n) throws IOException {
        List<Process> started = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                started.add(new ProcessBuilder("yes").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start());
            }
        } catch (IOException e) {
            started.forEach(Process::destroyForcibly);
            throw new IOException("--hogs: cannot start 'yes' as a CPU hog: " + e.getMessage(), e);
        }
        return new CpuHogs(started);
    }

    /** How many run now. */
    public int running() {
        return (int) hogs.stream().filter(Process::isAlive).count();
    }

    /** What the header says: {@code "2 CPU hogs (yes > /dev/null, pids 10 11)"}, or "no CPU hogs". */
    public String describe() {
        if (hogs.isEmpty()) {
            return "no CPU hogs";
        }
        StringBuilder s = new StringBuilder().append(hogs.size()).append(hogs.size() == 1 ? " CPU hog" : " CPU hogs")
            .append(" (yes > /dev/null, pid");
        s.append(hogs.size() == 1 ? "" : "s");
        for (Process p : hogs) {
            s.append(' ').append(p.pid());
        }
        return s.append(')').toString();
    }

    @Override
    public void close() {
        for (Process p : hogs) {
            p.destroyForcibly();
        }
        for (Process p : hogs) {
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
