package org.urdma.nativeio;

import static org.junit.jupiter.api.Assertions.*;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** getifaddrs(3) through FFM: the loopback interface's address and flags, and nothing for a missing interface. */
class InterfaceAddressesTest {
    @Test
    void loopbackHasItsAddressAndCarrier() throws Exception {
        assertTrue(InterfaceAddresses.ipv4("lo").contains(InetAddress.getByName("127.0.0.1")), InterfaceAddresses.ipv4().toString());
        int flags = InterfaceAddresses.flags("lo");
        assertTrue((flags & LinuxConstants.IFF_UP) != 0 && (flags & InterfaceAddresses.IFF_LOWER_UP) != 0, Integer.toHexString(flags));
    }

    @Test
    void aMissingInterfaceHasNoAddressesAndNoFlags() {
        assertTrue(InterfaceAddresses.ipv4("nosuchif0").isEmpty());
        assertEquals(-1, InterfaceAddresses.flags("nosuchif0"));
    }
}
