package org.urdma.express.tree;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/** {@code --exclude} globs: an entry matches when its name or its relative path (source name first) does. */
public final class Excludes {
    private final List<PathMatcher> matchers = new ArrayList<>();

    public Excludes(List<String> globs) {
        for (String g : globs) matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + g));
    }

    /** @param relative '/'-separated, its first component the source's name */
    public boolean matches(Path name, String relative) {
        for (PathMatcher m : matchers) if (m.matches(name) || m.matches(Path.of(relative))) return true;
        return false;
    }
}
