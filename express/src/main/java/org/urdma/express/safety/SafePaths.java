package org.urdma.express.safety;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Keeps every write under a server's root: a relative path from a client is refused when it is absolute, has a
 * {@code ..}, {@code .} or empty component, or a NUL; and when an existing directory on its way is a symlink that
 * leads outside the root. A symlink the client asks for is refused when its target leads outside.
 */
public final class SafePaths {
    private final Path root;

    /** @param root the directory served; it must exist */
    public SafePaths(Path root) throws IOException {
        this.root = root.toRealPath();
    }

    public Path root() {
        return root;
    }

    /** Checks the text of a relative path (empty means the root itself when {@code emptyIsRoot}). */
    public static void checkText(String path, boolean emptyIsRoot) {
        if (path.isEmpty()) {
            if (emptyIsRoot) return;
            throw new PathRefusedException("path '': empty");
        }
        if (path.indexOf('\0') >= 0) throw new PathRefusedException("path '" + printable(path) + "': contains NUL");
        if (path.startsWith("/")) throw new PathRefusedException("path '" + printable(path) + "': absolute (paths are relative to the served root)");
        for (String c : path.split("/", -1)) {
            if (c.equals("..")) throw new PathRefusedException("path '" + printable(path) + "': '..' would leave the root");
            if (c.isEmpty() || c.equals(".")) throw new PathRefusedException("path '" + printable(path) + "': empty or '.' component");
        }
    }

    /**
     * Resolves {@code relative} under {@code base} (a directory under the root), refusing it when its text is unsafe
     * or a directory it passes through leads outside the root.
     */
    public Path resolve(Path base, String relative) {
        checkText(relative, false);
        Path p = base.resolve(relative);
        for (Path a = p.getParent(); a != null && a.startsWith(root); a = a.getParent()) {
            if (!Files.exists(a, LinkOption.NOFOLLOW_LINKS)) continue;
            try {
                if (!a.toRealPath().startsWith(root)) {
                    throw new PathRefusedException("path '" + printable(relative) + "': '" + printable(root.relativize(a).toString())
                            + "' is a symlink leading outside the root");
                }
            } catch (IOException e) {
                throw new PathRefusedException("path '" + printable(relative) + "': " + e.getMessage());
            }
            break; // the nearest existing ancestor decides: its real path contains the rest
        }
        return p;
    }

    /**
     * A source a pulling client names: refused as {@link #resolve} refuses a path, and when it is missing or is itself
     * a symlink (or passes through one) whose real path leads outside the root.
     */
    public Path source(String relative) {
        Path p = resolve(root, relative);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) throw new PathRefusedException("path '" + printable(relative) + "': no such file or directory");
        if (Files.isSymbolicLink(p)) return p; // sent as a link, never followed
        try {
            if (!p.toRealPath().startsWith(root)) throw new PathRefusedException("path '" + printable(relative) + "': leads outside the root");
        } catch (IOException e) {
            throw new PathRefusedException("path '" + printable(relative) + "': " + e.getMessage());
        }
        return p;
    }

    /** The destination directory a client names, under the root. */
    public Path destination(String relative) {
        checkText(relative, true);
        return relative.isEmpty() ? root : resolve(root, relative);
    }

    /** Refuses a symlink at {@code linkPath} (relative to the destination) whose target leads outside it. */
    public static void checkLinkTarget(String linkPath, String target) {
        if (target.isEmpty()) throw new PathRefusedException("symlink '" + printable(linkPath) + "': empty target");
        if (target.startsWith("/")) {
            throw new PathRefusedException("symlink '" + printable(linkPath) + "' -> '" + printable(target) + "': absolute target leads outside the root");
        }
        int depth = linkPath.split("/").length - 1;
        for (String c : target.split("/")) {
            if (c.equals("..")) depth--;
            else if (!c.isEmpty() && !c.equals(".")) depth++;
            if (depth < 0) {
                throw new PathRefusedException("symlink '" + printable(linkPath) + "' -> '" + printable(target) + "': target leads outside the root");
            }
        }
    }

    /** A path for a one-line message: newlines and control characters escaped. */
    public static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n') b.append("\\n");
            else if (c < 0x20 || c == 0x7f) b.append(String.format("\\x%02x", (int) c));
            else b.append(c);
        }
        return b.toString();
    }
}
