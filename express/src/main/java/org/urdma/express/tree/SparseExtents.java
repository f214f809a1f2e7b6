package org.urdma.express.tree;

import java.nio.file.Path;
import org.urdma.nativeio.Errno;
import org.urdma.nativeio.Libc;
import org.urdma.nativeio.LinuxConstants;

/**
 * A file's data extents as the file system reports them (lseek SEEK_DATA / SEEK_HOLE), so a sparse file's holes are
 * neither read nor sent. A file system without the calls reports the whole file as data.
 */
public final class SparseExtents {
    private final long[] starts;
    private final long[] ends;

    private SparseExtents(long[] starts, long[] ends) {
        this.starts = starts;
        this.ends = ends;
    }

    /** {@return the extents of a file of {@code size} bytes} */
    public static SparseExtents of(Path file, long size) {
        if (size == 0) return new SparseExtents(new long[0], new long[0]);
        int fd = Libc.open(file.toString(), LinuxConstants.O_RDONLY);
        if (fd < 0) return whole(size);
        try {
            java.util.ArrayList<long[]> out = new java.util.ArrayList<>();
            long at = 0;
            while (at < size) {
                long data = Libc.lseek(fd, at, Libc.SEEK_DATA);
                if (data < 0) {
                    if (Libc.errno() == Errno.ENXIO) break; // no data past at: the rest is a hole
                    return whole(size);
                }
                long hole = Libc.lseek(fd, data, Libc.SEEK_HOLE);
                if (hole < 0) return whole(size);
                out.add(new long[] {data, Math.min(hole, size)});
                at = hole;
            }
            long[] s = new long[out.size()];
            long[] e = new long[out.size()];
            for (int i = 0; i < s.length; i++) {
                s[i] = out.get(i)[0];
                e[i] = out.get(i)[1];
            }
            return new SparseExtents(s, e);
        } finally {
            Libc.close(fd);
        }
    }

    static SparseExtents whole(long size) {
        return new SparseExtents(new long[] {0}, new long[] {size});
    }

    /** {@return whether any data lies in [from, to)} */
    public boolean hasData(long from, long to) {
        for (int i = 0; i < starts.length; i++) if (starts[i] < to && ends[i] > from) return true;
        return false;
    }
}
