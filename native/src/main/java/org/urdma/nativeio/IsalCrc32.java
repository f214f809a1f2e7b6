package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * CRC-32 (IEEE 802.3, the value {@link java.util.zip.CRC32} gives) over off-heap memory, from Intel ISA-L's
 * {@code crc32_gzip_refl} (Debian package {@code libisal2}) when it is installed.
 * <p>
 * Why: HotSpot's CRC32 intrinsic folds 16 bytes at a time and takes unaligned heads and tails a byte at a time,
 * so a 60-80 byte RoCE frame costs it 70-85 ns; ISA-L takes 20 ns for those and is ~12 % faster on 4 KiB.
 * The call is a {@link Linker.Option#critical critical} downcall (no thread-state change, a few ns), fine for
 * a computation that cannot block.
 * <p>
 * {@code -Durdma.crc=java} turns it off (to compare, or to rule it out); {@code isal} makes a missing library
 * an error instead of a quiet fallback.
 */
@SuppressWarnings("restricted") // a downcall into a system library: the point of this class
public final class IsalCrc32 {
    /** The system property that picks the implementation: {@code auto} (default), {@code isal} or {@code java}. */
    public static final String PROPERTY = "urdma.crc";

    private static final MethodHandle CRC;
    private static final String STATUS;

    static {
        String mode = System.getProperty(PROPERTY, "auto");
        MethodHandle h = null;
        String status;
        if (mode.equals("java")) {
            status = "off (-D" + PROPERTY + "=java)";
        } else if (!mode.equals("auto") && !mode.equals("isal")) {
            throw new IllegalArgumentException("-D" + PROPERTY + ": auto, isal or java, was '" + mode + "'");
        } else {
            try {
                SymbolLookup lib = SymbolLookup.libraryLookup("libisal.so.2", Arena.global());
                // uint32_t crc32_gzip_refl(uint32_t init_crc, const unsigned char *buf, uint64_t len): the pointer
                // is passed as a long so the data path builds no MemorySegment
                h = Linker.nativeLinker().downcallHandle(
                        lib.find("crc32_gzip_refl").orElseThrow(() -> new IllegalArgumentException("no crc32_gzip_refl")),
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),
                        Linker.Option.critical(false));
                status = "ISA-L crc32_gzip_refl (libisal.so.2)";
            } catch (IllegalArgumentException e) {
                if (mode.equals("isal")) {
                    throw new IllegalStateException("-D" + PROPERTY + "=isal but libisal.so.2 cannot be loaded ("
                            + e.getMessage() + "); install the Debian package libisal2", e);
                }
                status = "off (libisal.so.2 not found: apt-get install libisal2)";
            }
        }
        CRC = h;
        STATUS = status;
    }

    private IsalCrc32() {
    }

    /** True when {@link #update} can be called. */
    public static boolean available() {
        return CRC != null;
    }

    /** One line for logs and benchmark headers: which CRC is in use, or why not ISA-L. */
    public static String status() {
        return STATUS;
    }

    /**
     * The CRC-32 of the bytes before followed by {@code [address, address + length)}, given {@code crc}, the
     * CRC-32 of the bytes before (0 for none): chains like zlib's {@code crc32(crc, buf, len)}.
     * Only when {@link #available()}.
     */
    public static int update(int crc, long address, long length) {
        try {
            return (int) CRC.invokeExact(crc, address, length);
        } catch (Throwable t) {
            throw new IllegalStateException("crc32_gzip_refl failed", t);
        }
    }
}
