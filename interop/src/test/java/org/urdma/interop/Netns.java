package org.urdma.interop;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A network namespace this test run created, with a bridge and TAPs inside it. Everything the
 * interop tests put on a wire stays in here; {@link #close} kills what was started in it and
 * deletes it (also after a failure).
 */
final class Netns implements AutoCloseable {

    private final String name;
    private final List<Process> processes = new ArrayList<>();
    private boolean closed;

    private Netns(String name) {
        this.name = name;
    }

    /** A fresh namespace named urdma-io-PID-RANDOM, with loopback up. */
    static Netns create() throws IOException, InterruptedException {
        String name = "urdma-io-" + ProcessHandle.current().pid() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
        Interop.run(Duration.ofSeconds(10), "ip", "netns", "add", name);
        Netns ns = new Netns(name);
        try {
            ns.ip("link", "set", "lo", "up");
        } catch (IOException | InterruptedException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    String name() {
        return name;
    }

    /** Runs "ip -n NAME ARGS..." and fails on a non-zero exit. */
    String ip(String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "ip";
        cmd[1] = "-n";
        cmd[2] = name;
        System.arraycopy(args, 0, cmd, 3, args.length);
        return Interop.run(Duration.ofSeconds(10), cmd);
    }

    /** A bridge with an address (e.g. 10.77.0.1/24) and MTU, up. */
    void addBridge(String bridge, String cidr, int mtu) throws IOException, InterruptedException {
        ip("link", "add", bridge, "mtu", Integer.toString(mtu), "type", "bridge", "stp_state", "0",
                "forward_delay", "0");
        ip("addr", "add", cidr, "dev", bridge);
        ip("link", "set", bridge, "up");
    }

    /** A TAP for one qemu guest, enslaved to the bridge, up. */
    void addTap(String tap, String bridge, int mtu) throws IOException, InterruptedException {
        ip("tuntap", "add", "dev", tap, "mode", "tap");
        ip("link", "set", tap, "mtu", Integer.toString(mtu), "master", bridge, "up");
    }

    /** The argv prefix that runs a command inside this namespace. */
    List<String> exec(String... cmd) {
        List<String> l = new ArrayList<>(List.of("ip", "netns", "exec", name));
        l.addAll(List.of(cmd));
        return l;
    }

    /** Starts a long-running process inside the namespace; close() kills it if it is still running. */
    synchronized Process start(ProcessBuilder pb) throws IOException {
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Process p : processes) {
            Interop.kill(p, Duration.ofSeconds(5));
        }
        // anything else still holding the namespace (e.g. a stray qemu) goes with it
        try {
            String pids = Interop.run(Duration.ofSeconds(5), "ip", "netns", "pids", name).strip();
            for (String pid : pids.split("\\s+")) {
                if (!pid.isEmpty()) {
                    ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        } catch (IOException | InterruptedException | NumberFormatException e) {
            // best effort: the namespace delete below still runs
        }
        Interop.runQuietly("ip", "netns", "del", name);
    }
}
