package org.urdma.express.tree;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.urdma.express.protocol.Message;

/**
 * Walks sources depth first without following symlinks, handing each entry on as it is found (the transfer starts
 * before the walk ends): regular files, directories (before their contents) and symlinks; sockets, FIFOs and
 * devices are skipped with a warning, as are entries matching an {@code --exclude} glob (by name or relative path).
 */
public final class TreeWalker {
    private final Excludes excludes;
    private final Consumer<String> warn;

    public TreeWalker(List<String> excludeGlobs, Consumer<String> warn) {
        this.excludes = new Excludes(excludeGlobs);
        this.warn = warn;
    }

    private boolean excluded(Path name, String relative) {
        return excludes.matches(name, relative);
    }

    /** Walks {@code source}; its own name is the first component of every relative path. */
    public void walk(Path source, Consumer<TreeEntry> out) throws IOException {
        Path base = source.toAbsolutePath().normalize();
        Path parent = base.getParent();
        Files.walkFileTree(base, java.util.EnumSet.noneOf(java.nio.file.FileVisitOption.class), Integer.MAX_VALUE, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                String rel = relative(parent, dir);
                if (!dir.equals(base) && excluded(dir.getFileName(), rel)) return FileVisitResult.SKIP_SUBTREE;
                out.accept(entry(dir, rel, Message.Kind.DIRECTORY, 0, ""));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = relative(parent, file);
                if (excluded(file.getFileName(), rel)) return FileVisitResult.CONTINUE;
                if (attrs.isSymbolicLink()) {
                    out.accept(entry(file, rel, Message.Kind.SYMLINK, 0, Files.readSymbolicLink(file).toString()));
                } else if (attrs.isRegularFile()) {
                    out.accept(entry(file, rel, Message.Kind.FILE, attrs.size(), ""));
                } else {
                    warn.accept("skipped special file " + file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                warn.accept("skipped unreadable " + file + ": " + e.getMessage());
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String relative(Path parent, Path p) {
        Path r = parent == null ? p : parent.relativize(p);
        return r.toString().replace(java.io.File.separatorChar, '/');
    }

    static TreeEntry entry(Path p, String rel, Message.Kind kind, long size, String target) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, "unix:mode,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
        int mode = ((Integer) a.get("mode")) & 07777;
        long mtime = ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS);
        return new TreeEntry(p, rel, kind, size, mode, mtime, target);
    }
}
