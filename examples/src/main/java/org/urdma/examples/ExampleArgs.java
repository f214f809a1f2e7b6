package org.urdma.examples;

import java.time.Duration;
import org.urdma.transport.api.DeviceOptions;

/**
 * The command line every example takes: {@code [server | client HOST] [--port N] [--link L] [--ip A.B.C.D/NN]
 * [--framing F] [--count N] [--clients N]}. Without a role, server and client run in this JVM on a memory pair.
 */
public record ExampleArgs(String role, String host, int port, DeviceOptions device, int count, int clients) {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    public static ExampleArgs parse(String[] args, int defaultCount) {
        String role = "local", host = null, link = "memory", ip = null, framing = "roce2";
        int port = 18516, count = defaultCount, clients = 3;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "server" -> role = "server";
                case "client" -> {
                    role = "client";
                    host = value(args, ++i, "client");
                }
                case "--port" -> port = number(value(args, ++i, a), a, 1, 65535);
                case "--link" -> link = value(args, ++i, a);
                case "--ip" -> ip = value(args, ++i, a);
                case "--framing" -> framing = value(args, ++i, a);
                case "--count" -> count = number(value(args, ++i, a), a, 1, 1 << 20);
                case "--clients" -> clients = number(value(args, ++i, a), a, 1, 64);
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'; usage: [server | client HOST] [--port N] "
                        + "[--link memory|afpacket:IF|tap:IF] [--ip A.B.C.D/NN] [--framing F] [--count N] [--clients N]");
            }
        }
        if (!role.equals("local") && link.equals("memory")) {
            throw new IllegalArgumentException("--link: " + role + " needs afpacket:IF or tap:IF (memory works only in one JVM)");
        }
        return new ExampleArgs(role, host, port, DeviceOptions.memory().withLink(link).withIp(ip).withFraming(framing), count, clients);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) throw new IllegalArgumentException(option + ": needs a value");
        return args[i];
    }

    private static int number(String s, String option, int min, int max) {
        try {
            int v = Integer.parseInt(s);
            if (v < min || v > max) throw new IllegalArgumentException(option + ": must be " + min + ".." + max + ", was " + v);
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": must be a number, was '" + s + "'");
        }
    }
}
