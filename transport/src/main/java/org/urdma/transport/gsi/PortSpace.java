package org.urdma.transport.gsi;

/**
 * rdma_cm's port spaces and the IB service IDs they map to (kernel rdma_cma.h, cma.c): an IP port {@code p} in
 * space {@code ps} is service ID {@code 0x0000000001000000 | ps << 16 | p} ("RDMA_IB_IP_PS_*").
 */
public enum PortSpace {
    /** RC connections (RDMA_PS_TCP), what rping and perftest's -R use. */
    TCP(0x0106),
    /** UD through SIDR (RDMA_PS_UDP). */
    UDP(0x0111),
    /** RC or UD (RDMA_PS_IB). */
    IB(0x013F),
    IPOIB(0x0002);

    /** The bits a service ID keeps above the port: prefix and port space. */
    public static final long MASK = 0xFFFFFFFFFFFF0000L;
    private static final long IP_PREFIX = 0x0000000001000000L;

    private final int code;

    PortSpace(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The service ID of IP port {@code port} in this space. */
    public long serviceId(int port) {
        if (port < 0 || port > 0xFFFF) throw new IllegalArgumentException("port: must be 0..65535, was " + port);
        return IP_PREFIX | ((long) (code & 0xFF) << 16) | port;
    }

    /** The space a service ID is in, or null when it is not one of rdma_cm's IP service IDs. */
    public static PortSpace of(long serviceId) {
        if ((serviceId & 0xFFFFFFFFFF000000L) != IP_PREFIX) return null;
        int ps = (int) (serviceId >>> 16) & 0xFF;
        for (PortSpace s : values()) if ((s.code & 0xFF) == ps) return s;
        return null;
    }

    /** The IP port a service ID names. */
    public static int port(long serviceId) {
        return (int) serviceId & 0xFFFF;
    }
}
