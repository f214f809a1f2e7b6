package org.urdma.nativeio;

/** errno values used by this module (x86_64 / aarch64 Linux, checked against the kernel headers). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMSGSIZE = 90;
    public static final int ENETDOWN = 100;
    public static final int ENOBUFS = 105;

    private Errno() {
    }
}
