package org.urdma.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One command of a documentation page's shell block (a fenced block whose info string starts with {@code sh}): where
 * it is, its words, and what the page says about it in a trailing comment ({@code # exit N}: the status it ends with;
 * {@code # long}: too long to run in a test). Lines continued with a backslash are one command; {@code &&}, {@code ||},
 * {@code ;}, {@code |} and a trailing {@code &} separate commands of one line.
 */
record DocCommand(Path page, int line, String text, List<String> words, boolean sudo, boolean longRun, int exit) {
    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*(\\S*).*$");
    private static final Pattern COMMENT = Pattern.compile("\\s+#\\s*(.*)$");
    private static final Pattern EXIT = Pattern.compile("exit (\\d+)");

    /** The documentation pages: the top-level Markdown files and every page under docs/. */
    static List<Path> pages(Path root) {
        List<Path> pages = new ArrayList<>();
        for (String top : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
            if (Files.exists(root.resolve(top))) pages.add(root.resolve(top));
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    /** Every command in the shell blocks of {@code page}. */
    static List<DocCommand> in(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<DocCommand> out = new ArrayList<>();
        boolean inBlock = false, shell = false;
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (fence.matches()) {
                shell = !inBlock && fence.group(1).equals("sh");
                inBlock = !inBlock;
                continue;
            }
            if (!inBlock || !shell || lines.get(i).isBlank()) continue;
            int first = i;
            StringBuilder text = new StringBuilder(lines.get(i).strip());
            while (text.toString().endsWith("\\") && i + 1 < lines.size()) {
                text.setLength(text.length() - 1);
                text.append(' ').append(lines.get(++i).strip());
            }
            out.addAll(of(page, first + 1, text.toString()));
        }
        return out;
    }

    /** The commands of one logical line. */
    static List<DocCommand> of(Path page, int line, String text) {
        text = text.strip();
        String comment = "";
        Matcher c = COMMENT.matcher(text);
        if (c.find()) {
            comment = c.group(1);
            text = text.substring(0, c.start());
        }
        Matcher exitMatch = EXIT.matcher(comment);
        int exit = exitMatch.find() ? Integer.parseInt(exitMatch.group(1)) : 0;
        boolean longRun = comment.contains("long");
        boolean sudo = text.startsWith("sudo ");
        List<DocCommand> out = new ArrayList<>();
        for (String part : text.split("\\s*(&&|\\|\\||;|\\||&$)\\s*")) {
            if (!part.isBlank()) out.add(new DocCommand(page, line, part.strip(), words(part), sudo, longRun, exit));
        }
        return out;
    }

    /** Shell words, with single and double quotes removed (no expansion). */
    static List<String> words(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char ch : s.toCharArray()) {
            if (quote != 0) {
                if (ch == quote) quote = 0; else w.append(ch);
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
                any = true;
            } else if (Character.isWhitespace(ch)) {
                if (any || w.length() > 0) words.add(w.toString());
                w.setLength(0);
                any = false;
            } else {
                w.append(ch);
            }
        }
        if (any || w.length() > 0) words.add(w.toString());
        return words;
    }

    /** The arguments after {@code ./urdma}, or null when this command does not run urdma. */
    List<String> urdmaArgs() {
        int at = words.indexOf("./urdma");
        return at < 0 ? null : words.subList(at + 1, words.size());
    }

    /** Whether a test may run it: urdma itself, no root, not marked long. */
    boolean runnable() {
        return words.size() > 0 && words.get(0).equals("./urdma") && !sudo && !longRun;
    }

    /** The Maven arguments, or null when this is not a Maven command. */
    List<String> mavenArgs() {
        for (int i = 0; i < words.size(); i++) {
            if (words.get(i).equals("mvn")) return words.subList(i + 1, words.size());
            if (!words.get(i).contains("=") && !words.get(i).equals("sudo")) return null;
        }
        return null;
    }

    @Override
    public String toString() {
        return page.getFileName() + ":" + line + ": " + text;
    }
}
