package org.urdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownLinksTest {
    @TempDir
    Path dir;

    @Test
    void noMarkdownFileOfTheRepositoryLinksOutsideItToAMissingFileOrMentionsAMachinesPaths() throws IOException {
        Path root = Repository.root();
        List<Path> files = Repository.markdownFiles(root);
        assertTrue(files.contains(root.resolve("README.md")), "the walk finds the README: " + files);
        List<String> problems = new ArrayList<>();
        for (Path f : files) problems.addAll(MarkdownLinks.problems(root, f, Files.readString(f)));
        assertTrue(problems.isEmpty(), problems.size() + " link problems in the repository's Markdown:\n"
            + String.join("\n", problems));
    }

    @Test
    void aLinkToAMissingFileIsReportedWithItsLine() throws IOException {
        Path doc = page("docs/a.md", "# A\n\nSee [b](b.md) and [c](c.md#part).\n");
        Files.writeString(dir.resolve("docs/b.md"), "# B\n");
        assertEquals(List.of("docs/a.md:3: links to 'c.md#part', which does not exist"), check(doc));
    }

    @Test
    void linksLeavingTheRepositoryAreReportedWhateverTheirForm() throws IOException {
        Path doc = page("docs/a.md", "[up](../../outside.md) [abs](/etc/hosts) [file](file:///etc/hosts)\n\n[ref]: ../../x.md\n");
        List<String> problems = check(doc);
        assertEquals(4, problems.size(), problems.toString());
        assertTrue(problems.stream().allMatch(p -> p.contains("outside the repository")), problems.toString());
    }

    @Test
    void mentionsOfSharedAndWorkPathsAreReportedEvenInCode() throws IOException {
        Path doc = page("a.md", "Design: `../shared/docs/DESIGN.md`.\n\n```\ncat /work/shared/x\n```\n");
        List<String> problems = check(doc);
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("a.md:1: mentions '../shared/'"), problems.toString());
        assertTrue(problems.get(1).startsWith("a.md:4: mentions '/work/'"), problems.toString());
    }

    @Test
    void webLinksAnchorsImagesAndCodeThatLooksLikeALinkPass() throws IOException {
        Files.createDirectories(dir.resolve("img"));
        Files.writeString(dir.resolve("img/x.png"), "");
        Path doc = page("a.md", "[rdma-core](https://github.com/linux-rdma/rdma-core) [top](#a) ![x](img/x.png \"X\")\n"
            + "`[not](a-link.md)`\n```\n[nor](this.md)\n```\n<https://example.org/work/x>\n");
        assertEquals(List.of(), check(doc));
    }

    private Path page(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private List<String> check(Path doc) throws IOException {
        return MarkdownLinks.problems(dir, doc, Files.readString(doc));
    }
}
