package org.urdma.express.protocol;

/** Sizes both sides agree on: the largest control message (one receive buffer) and the batches that fit in it. */
public final class ControlLimits {
    /** A receive buffer: a FILES batch, a PLAN's block bitmap (1 TiB of 4 MiB blocks) or a CHUNK's segments fit. */
    public static final int MAX_MESSAGE = 64 * 1024;
    /** Segments one CHUNK describes (49 bytes each). */
    public static final int MAX_SEGMENTS = 1024;
    /** File ends one CHUNK carries (40 bytes each). */
    public static final int MAX_FILE_ENDS = 256;
    /** Blocks a file may have (the PLAN's bitmap must fit a message). */
    public static final int MAX_BLOCKS = 8 * 60 * 1024;
    /** A path's UTF-8 bytes, as PATH_MAX. */
    public static final int MAX_PATH = 4096;

    private ControlLimits() {
    }
}
