package org.urdma.verbs;

/** Path MTU: payload bytes per packet (IBTA values; enum ordinal + 1 is the {@code ibv_mtu} code). */
public enum PathMtu {
    MTU_256(256), MTU_512(512), MTU_1024(1024), MTU_2048(2048), MTU_4096(4096);

    private final int bytes;

    PathMtu(int bytes) {
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    public static PathMtu ofBytes(int bytes) {
        for (PathMtu m : values()) {
            if (m.bytes == bytes) return m;
        }
        throw new IllegalArgumentException("pathMtu: " + bytes + " is not one of 256, 512, 1024, 2048, 4096");
    }
}
