package org.urdma.interop;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A class of cases between urdma and stock tools in the run's shared guest: the fixture, its guest 0, the class's
 * transcript directory under bench/target/interop, and the tools killed in the guest after every case (a failed case
 * must not leave a server holding the port for the next).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedGuest.class)
abstract class GuestToolTest {
    private final String dir;
    private final String tools;
    TwoGuestFixture fx;
    QemuGuest guest;
    Path out;

    /** {@code dir}: the transcripts' directory name; {@code tools}: the guest's process names to kill after each case. */
    GuestToolTest(String dir, String tools) {
        this.dir = dir;
        this.tools = tools;
    }

    @BeforeAll
    final void boot(TwoGuestFixture shared) throws Exception {
        out = Interop.outputDir(dir);
        fx = shared;
        guest = fx.guest(0);
    }

    @AfterEach
    final void killTools() throws Exception {
        if (guest != null) guest.run("killall -9 " + tools + " 2>/dev/null; true", StockToolRun.STEP);
    }
}
