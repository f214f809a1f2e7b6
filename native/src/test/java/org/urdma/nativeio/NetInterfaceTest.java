package org.urdma.nativeio;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import static org.junit.jupiter.api.Assertions.*;

class NetInterfaceTest {

    @Test
    void loopbackIsFoundInTheCurrentNamespace() {
        NetInterface lo = NetInterface.lookup("lo");
        assertEquals(1, lo.index());
        assertEquals(NetInterface.indexOf("lo"), lo.index());
        assertEquals("00:00:00:00:00:00", lo.macString());
        assertTrue(lo.mtu() > 0);
    }

    @Test
    void unknownInterfaceErrorNamesIt() {
        NativeException e = assertThrows(NativeException.class, () -> NetInterface.lookup("nosuchif0"));
        assertTrue(e.getMessage().contains("'nosuchif0'"), e.getMessage());
        assertEquals(Errno.ENODEV, e.errno());
        NativeException e2 = assertThrows(NativeException.class, () -> NetInterface.indexOf("nosuchif0"));
        assertTrue(e2.getMessage().contains("'nosuchif0'"), e2.getMessage());
        assertFalse(NetInterface.exists("nosuchif0"));
    }

    @Test
    void tooLongNameIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NetInterface.lookup("abcdefghijklmnop"));
        assertTrue(e.getMessage().contains("15"), e.getMessage());
    }

    @Test
    void loopbackReportsNoSpeed() {
        assertEquals(-1, NetInterface.speedMbps("lo"));
    }

    /** The ethtool speed read in the thread's namespace is what that namespace's sysfs shows (veth: 10000 once up). */
    @Tag("root")
    @Test
    void vethSpeedMatchesSysfsInsideItsNamespace() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String a = t.namespace("a");
            String b = t.namespace("b");
            t.veth(a, "x0", b, "y0", Topology.LinkOptions.mtu(1500));
            Process p = new ProcessBuilder("ip", "netns", "exec", a, "cat", "/sys/class/net/x0/speed").redirectErrorStream(true).start();
            String sysfs = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            long expected = sysfs.matches("\\d+") && Long.parseLong(sysfs) > 0 ? Long.parseLong(sysfs) : -1;
            long[] got = new long[1];
            t.run(a, () -> got[0] = NetInterface.speedMbps("x0"));
            assertEquals(expected, got[0], "sysfs in the namespace says '" + sysfs + "'");
        }
    }

    @Tag("root")
    @Test
    void vethLookupMatchesWhatIpSet() {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String a = t.namespace("a");
            String b = t.namespace("b");
            t.veth(a, "x0", b, "y0", Topology.LinkOptions.mtu(9000).withMacs("02:aa:bb:cc:dd:01", "02:aa:bb:cc:dd:02"));
            t.run(a, () -> {
                NetInterface x = NetInterface.lookup("x0");
                assertEquals("02:aa:bb:cc:dd:01", x.macString());
                assertEquals(9000, x.mtu());
                String ipOut = t.ip(a, "-o", "link", "show", "x0");
                assertTrue(ipOut.startsWith(x.index() + ":"), "ip says '" + ipOut + "', we say index " + x.index());
                assertEquals(x.index(), NetInterface.indexOf("x0"));
                assertTrue(x.isUp());
                assertFalse(NetInterface.exists("y0"), "peer lives in the other namespace");
                NetInterface.setUp("x0", false);
                assertFalse(NetInterface.lookup("x0").isUp());
                NetInterface.setUp("x0", true);
                assertTrue(NetInterface.lookup("x0").isUp());
            });
            t.run(b, () -> assertEquals("02:aa:bb:cc:dd:02", NetInterface.lookup("y0").macString()));
            assertFalse(NetInterface.exists("x0"), "thread is back in the root namespace");
        }
    }
}
