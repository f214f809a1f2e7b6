package org.urdma.express.receiver;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.urdma.express.journal.PartFiles;
import org.urdma.express.protocol.Message;
import org.urdma.express.safety.SafePaths;
import org.urdma.express.tree.Excludes;

/**
 * {@code --delete}: in every directory the client sent, deletes what the destination holds and the source does not,
 * as rsync does: never following a symlink (a link is deleted as a link), never outside the destination, leaving alone
 * names the protecting globs match (the client's excludes) and the part directory.
 */
final class ExtraneousEntries {
    private final SafePaths safe;
    private final Path destination;
    private final Excludes protect;
    private final Consumer<String> log;
    private int deleted;

    ExtraneousEntries(SafePaths safe, Path destination, Excludes protect, Consumer<String> log) {
        this.safe = safe;
        this.destination = destination;
        this.protect = protect;
        this.log = log;
    }

    /** Deletes, under each of {@code directories}, the entries whose relative path {@code seen} lacks; {@return how many went} */
    int delete(List<Message.Entry> directories, Set<String> seen) {
        for (Message.Entry d : directories) {
            Path dir = safe.resolve(destination, d.path());
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) continue;
            List<Path> extra = new ArrayList<>();
            try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                for (Path c : children) {
                    String name = c.getFileName().toString();
                    String rel = d.path() + "/" + name;
                    if (seen.contains(rel) || name.equals(PartFiles.DIRECTORY) || protect.matches(c.getFileName(), rel)) continue;
                    extra.add(c);
                }
            } catch (IOException e) {
                log.accept("--delete: " + SafePaths.printable(d.path()) + ": " + e.getMessage());
                continue;
            }
            for (Path c : extra) deleteTree(c);
        }
        return deleted;
    }

    /** Deletes {@code p} and, for a real directory, what it holds; links are not followed. */
    private void deleteTree(Path p) {
        try {
            Files.walkFileTree(p, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Files.delete(f);
                    deleted++;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null) throw e;
                    Files.delete(dir);
                    deleted++;
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            log.accept("--delete: " + SafePaths.printable(destination.relativize(p).toString()) + ": " + e.getMessage());
        }
    }
}
