package org.urdma.nativeio;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class NativeExceptionTest {

    @Test
    void permissionErrorsOnAfPacketTellHowToFixThem() {
        NativeException e = AfPacketSocket.permissionAware("socket", Errno.EPERM, "AF_PACKET, SOCK_RAW");
        assertTrue(e.getMessage().contains("needs CAP_NET_RAW (run as root)"), e.getMessage());
        assertTrue(e.isPermissionDenied());
        assertEquals("socket", e.function());
        NativeException other = AfPacketSocket.permissionAware("socket", Errno.EINVAL, "x");
        assertFalse(other.getMessage().contains("CAP_NET_RAW"));
        assertTrue(other.getMessage().contains("errno 22"), other.getMessage());
    }

    @Test
    void failedCallsCaptureErrnoAndStrerror() {
        int rc = Libc.close(-1);
        assertEquals(-1, rc);
        assertEquals(Errno.EBADF, Libc.errno());
        NativeException e = assertThrows(NativeException.class, () -> Libc.check(Libc.close(-1), "close", "fd -1"));
        assertEquals(Errno.EBADF, e.errno());
        assertTrue(e.getMessage().startsWith("close(fd -1) failed: Bad file descriptor"), e.getMessage());
    }
}
