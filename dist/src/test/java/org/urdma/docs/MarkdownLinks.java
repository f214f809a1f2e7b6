package org.urdma.docs;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Markdown file must not do in a clone: link to a file that is not there, link out of the repository (by a
 * relative path, an absolute one or file:), or mention the paths of one machine ({@code ../shared/}, {@code /work/}).
 * Web links and in-page anchors are fine; code is not a link, but a path mentioned in code is still a mention.
 */
final class MarkdownLinks {
    private static final Pattern INLINE = Pattern.compile("!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+).*?\\1");
    private static final Pattern MACHINE_PATH = Pattern.compile("\\.\\./shared/|(?<![\\w.])/work/");

    private MarkdownLinks() {
    }

    /** One line per problem, "FILE:LINE: what", FILE relative to {@code root}. */
    static List<String> problems(Path root, Path file, String text) {
        List<String> out = new ArrayList<>();
        String where = root.relativize(file).toString();
        String[] lines = text.split("\\R", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String at = where + ":" + (i + 1) + ": ";
            Matcher m = MACHINE_PATH.matcher(line);
            while (m.find()) out.add(at + "mentions '" + m.group() + "', a path of one machine, not of a clone");
            if (line.stripLeading().startsWith("```") || line.stripLeading().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) continue;
            String prose = CODE_SPAN.matcher(line).replaceAll("");
            for (Pattern p : List.of(INLINE, REFERENCE)) {
                Matcher l = p.matcher(prose);
                while (l.find()) {
                    String problem = target(root, file, l.group(1));
                    if (problem != null) out.add(at + problem);
                }
            }
        }
        return out;
    }

    /** What is wrong with a link's target, or null. */
    private static String target(Path root, Path file, String target) {
        if (target.startsWith("#")) return null;
        if (SCHEME.matcher(target).find()) {
            String t = target.toLowerCase(java.util.Locale.ROOT);
            return t.startsWith("http://") || t.startsWith("https://") || t.startsWith("mailto:") ? null
                : "links to '" + target + "', outside the repository";
        }
        String path = URLDecoder.decode(target.replaceAll("[#?].*$", "").replace("+", "%2B"), StandardCharsets.UTF_8);
        if (path.startsWith("/")) return "links to the absolute path '" + target + "', outside the repository";
        Path resolved = file.getParent().resolve(path).normalize();
        if (!resolved.startsWith(root)) return "links to '" + target + "', outside the repository";
        if (!Files.exists(resolved)) return "links to '" + target + "', which does not exist";
        return null;
    }
}
