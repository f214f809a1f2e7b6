package org.urdma.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One namespace, bridge and rxe guest for every interop class of the JVM (a TCG boot costs close to a minute on a busy
 * machine). The fixture lives in the root {@link ExtensionContext.Store}, which closes it when the run ends, also after
 * a failure. Bridge and TAPs are at 4200 throughout; each class starts and ends with the guest's eth0 at 1500
 * (active_mtu 1024, port active), so what one class changes does not leak into the next. Classes take the fixture as
 * a parameter of their {@code @BeforeAll} and must not close it.
 */
final class SharedGuest implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SharedGuest.class);
    private static final Duration STEP = Duration.ofSeconds(120);

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Interop.requireRootOrCi(); // a skip here skips the class before anything boots
        resetGuest(fixture(context));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        TwoGuestFixture fx = context.getRoot().getStore(NS).get(TwoGuestFixture.class, TwoGuestFixture.class);
        if (fx != null) resetGuest(fx);
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext context) {
        return p.getParameter().getType() == TwoGuestFixture.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext context) {
        return fixture(context);
    }

    private static TwoGuestFixture fixture(ExtensionContext context) {
        return context.getRoot().getStore(NS).getOrComputeIfAbsent(TwoGuestFixture.class, k -> boot(),
                TwoGuestFixture.class);
    }

    private static TwoGuestFixture boot() {
        try {
            TwoGuestFixture fx = TwoGuestFixture.start(1, 1500, 4200, Interop.outputDir("guest"));
            try {
                // a bridge without a set address takes the smallest port MAC, which changes as the per-case TAPs come
                // and go; the guest's ARP entry for 10.77.0.1 would then point nowhere
                fx.ns.ip("link", "set", TwoGuestFixture.BRIDGE, "address", "02:77:00:00:00:01");
            } catch (IOException | InterruptedException | RuntimeException e) {
                fx.close();
                throw e;
            }
            System.out.println("[interop] shared guest ready, boot time " + fx.bootTimes.get(0));
            return fx;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while booting the shared guest", e);
        }
    }

    /** eth0 back to 1500: rxe0 port 1 active with active_mtu 1024, as after a fresh boot. */
    private static void resetGuest(TwoGuestFixture fx) throws IOException, InterruptedException {
        QemuGuest g = fx.guest(0);
        GuestResult r = g.run("ip link set eth0 mtu 1500 && ip link set eth0 up && sleep 1 && ibv_devinfo -d rxe0"
                + " | grep -E 'state:|active_mtu'", STEP);
        if (r.exitCode() != 0 || !r.output().contains("PORT_ACTIVE") || !r.output().contains("1024 (3)")) {
            throw new IllegalStateException("shared guest: rxe0 not back at active_mtu 1024 after eth0 mtu 1500: " + r);
        }
    }
}
