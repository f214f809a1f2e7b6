package org.urdma.express.tree;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** Applies a source's permission bits and modification time to what was written at the destination. */
public final class FileModes {
    private static final PosixFilePermission[] ORDER = {
        PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
        PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

    private FileModes() {
    }

    public static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        for (int i = 0; i < ORDER.length; i++) if ((mode & (1 << i)) != 0) s.add(ORDER[i]);
        return s;
    }

    /** Sets the permission bits (not of a symlink, which has none of its own) and the mtime (of the link itself). */
    public static void apply(Path p, int mode, long mtimeNs, boolean symlink) throws IOException {
        if (!symlink) Files.setPosixFilePermissions(p, permissions(mode));
        FileTime t = FileTime.from(mtimeNs, TimeUnit.NANOSECONDS);
        Files.getFileAttributeView(p, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(t, null, null);
    }
}
