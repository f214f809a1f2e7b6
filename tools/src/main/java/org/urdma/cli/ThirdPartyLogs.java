package org.urdma.cli;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the libraries' log lines off the user's terminal, where they would land in the middle of a command's
 * table: Netty logs through java.util.logging (slf4j has no provider here), Chronicle through slf4j. Their errors
 * still print; {@code --verbose} leaves everything as the libraries set it.
 */
final class ThirdPartyLogs {
    /** The libraries whose warnings and notes stay off the terminal. */
    static final List<String> LIBRARIES = List.of("io.netty", "net.openhft");

    // java.util.logging holds loggers weakly: a level set on one that is collected would be lost
    private static final List<Logger> HELD = new ArrayList<>();

    private ThirdPartyLogs() {
    }

    /** Quiets the libraries unless the arguments ask for {@code --verbose}. */
    static void quietUnlessVerbose(String[] args) {
        if (!List.of(args).contains("--verbose")) quiet();
    }

    static synchronized void quiet() {
        // Netty seeds its channel ids with a MAC and warns in a namespace that has none; random bytes are its fallback
        setIfAbsent("io.netty.machineId", HexFormat.ofDelimiter(":").formatHex(randomBytes(8)));
        // slf4j reports on stderr that it has no provider; there is none on purpose (Chronicle's logs are not ours)
        setIfAbsent("slf4j.internal.verbosity", "ERROR");
        for (String name : LIBRARIES) {
            Logger l = Logger.getLogger(name);
            l.setLevel(Level.SEVERE);
            HELD.add(l);
        }
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) System.setProperty(property, value);
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
