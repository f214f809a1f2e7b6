package org.urdma.nativeio.netns;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.NativeException;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import static org.junit.jupiter.api.Assertions.*;

@Tag("root")
class NetnsTest {

    @BeforeEach
    void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void runSwitchesOnlyTheCurrentThreadAndRestoresIt() throws Exception {
        try (Topology t = Topology.create()) {
            String ns = t.namespace("a");
            t.veth(ns, "in0", ns, "in1", Topology.LinkOptions.defaults());
            assertFalse(NetInterface.exists("in0"));
            assertTrue(Netns.call(ns, () -> NetInterface.exists("in0")));
            // a thread started before stays where it was while this one is inside
            java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
            boolean[] seen = new boolean[2];
            Thread other = new Thread(() -> {
                try {
                    entered.await();
                } catch (InterruptedException e) {
                    return;
                }
                seen[0] = NetInterface.exists("in0");
            });
            other.start();
            try (Netns.Scope s = Netns.enter(ns)) {
                assertEquals(ns, s.name());
                entered.countDown();
                other.join();
                assertFalse(seen[0]);
                assertTrue(NetInterface.exists("in0"));
                // a thread started inside inherits the namespace
                Thread child = new Thread(() -> seen[1] = NetInterface.exists("in0"));
                child.start();
                child.join();
                assertTrue(seen[1]);
            }
            assertFalse(NetInterface.exists("in0"), "restored after the scope");
            assertThrows(IllegalStateException.class, () -> Netns.run(ns, () -> {
                throw new IllegalStateException("boom");
            }));
            assertFalse(NetInterface.exists("in0"), "restored after an exception");
        }
    }

    @Test
    void topologyCloseRemovesItsNamespacesAndRootLinks() {
        Topology t = Topology.create();
        String a = t.namespace("a");
        String b = t.namespace("b");
        String rootEnd = t.uniqueName("r");
        t.veth(null, rootEnd, a, "e0", Topology.LinkOptions.mtu(2000));
        t.veth(a, "e1", b, "e1", Topology.LinkOptions.defaults().down());
        t.bridge(b, "br0");
        t.attach(b, "e1", "br0");
        t.addAddress(a, "e0", "10.99.0.1/24");
        assertTrue(t.exec(a, "ip", "-o", "addr").contains("10.99.0.1/24"));
        assertTrue(NetInterface.exists(rootEnd));
        assertEquals(2000, NetInterface.lookup(rootEnd).mtu());
        assertTrue(Netns.list().containsAll(t.namespaces()));
        t.close();
        t.close();
        assertFalse(Netns.exists(a));
        assertFalse(Netns.exists(b));
        assertFalse(NetInterface.exists(rootEnd));
        assertThrows(IllegalStateException.class, () -> t.namespace("c"));
    }

    @Test
    void ipErrorsCarryStderr() {
        IpCommandException e = assertThrows(IpCommandException.class, () -> Ip.ip("link", "show", "nosuchif9"));
        assertNotEquals(0, e.exitCode());
        assertTrue(e.getMessage().contains("nosuchif9"), e.getMessage());
        assertFalse(e.stderr().isBlank());
    }

    @Test
    void enteringAMissingNamespaceIsAClearError() {
        NativeException e = assertThrows(NativeException.class, () -> Netns.enter("urdma-no-such-ns"));
        assertTrue(e.getMessage().contains("'urdma-no-such-ns'"), e.getMessage());
        assertFalse(NetInterface.exists("nosuchif9"));
    }

    @Test
    void virtualThreadsAreRefused() throws Exception {
        Throwable[] thrown = new Throwable[1];
        Thread.ofVirtual().start(() -> {
            try {
                Netns.enter("whatever").close();
            } catch (Throwable t) {
                thrown[0] = t;
            }
        }).join();
        assertInstanceOf(IllegalStateException.class, thrown[0]);
        assertTrue(thrown[0].getMessage().contains("virtual thread"));
    }

    @Test
    void namesAreUniqueAndShort() {
        try (Topology t1 = Topology.create(); Topology t2 = Topology.create()) {
            assertNotEquals(t1.prefix(), t2.prefix());
            assertTrue(t1.uniqueName("veth0a").length() <= 15);
            assertThrows(IllegalArgumentException.class, () -> t1.uniqueName("much-too-long-name"));
        }
        assertThrows(IllegalArgumentException.class, () -> Topology.create("Bad/"));
    }

    @Test
    void processInsideANamespaceSeesItsLinks() throws Exception {
        try (Topology t = Topology.create()) {
            String ns = t.namespace("p");
            Process p = Netns.processBuilder(ns, "cat", "/proc/net/dev").start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor());
            assertTrue(out.contains("lo:"));
            assertFalse(out.contains("eth0") && !Netns.exec(ns, "ip", "-o", "link").contains("eth0"));
        }
    }
}
