package org.urdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * In a fresh JVM (logging is set up once per process), as {@code urdma}'s main sets it up: Netty's warning about a
 * namespace without a MAC, logged as Netty logs it, does not reach the terminal unless {@code --verbose} is given.
 */
class ThirdPartyLogsTest {
    static final String WARNING = "Failed to find a usable hardware address from the network interfaces";

    /** The child JVM: main's logging set-up for ARGS, then Netty's warning and its channel-id seed. */
    public static void main(String[] args) {
        ThirdPartyLogs.quietUnlessVerbose(args);
        InternalLoggerFactory.getInstance("io.netty.util.internal.MacAddressUtil").warn(WARNING + "; using random bytes");
        io.netty.channel.DefaultChannelId.newInstance();
        System.out.println("machineId=" + System.getProperty("io.netty.machineId"));
    }

    @Test
    void nettysWarningStaysOffTheTerminalAndItsMachineIdIsSetSoItHasNoneToGive() throws Exception {
        Run r = child();
        assertEquals(0, r.rc, r.err);
        assertFalse(r.err.contains(WARNING), r.err);
        assertTrue(r.err.isBlank(), "nothing on stderr: " + r.err);
        assertTrue(r.out.matches("(?s)machineId=([0-9a-f]{2}:){7}[0-9a-f]{2}\\s*"), r.out);
    }

    @Test
    void verboseLetsTheLibrariesWarningsThrough() throws Exception {
        Run r = child("--verbose");
        assertEquals(0, r.rc, r.err);
        assertTrue(r.err.contains(WARNING), r.err);
        assertTrue(r.out.contains("machineId=null"), r.out);
    }

    private record Run(int rc, String out, String err) {
    }

    private static Run child(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // the launcher's JVM flags, which this JVM was given too: the JDK's own warnings are not what is tested
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (f.startsWith("--add-") || f.startsWith("--enable-native-access") || f.startsWith("--sun-misc")) cmd.add(f);
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ThirdPartyLogsTest.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        return new Run(p.waitFor(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }
}
