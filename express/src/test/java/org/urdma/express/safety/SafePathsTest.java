package org.urdma.express.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafePathsTest {
    @TempDir
    Path tmp;

    private static String refused(Runnable r) {
        return assertThrows(PathRefusedException.class, r::run).getMessage();
    }

    @Test
    void pathsThatWouldLeaveTheRootAreRefusedByName() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.createDirectories(root.resolve("in"));
        Files.createSymbolicLink(root.resolve("inner-link"), Path.of("in"));
        Files.createSymbolicLink(root.resolve("escape"), tmp);
        SafePaths s = new SafePaths(root);
        assertEquals("path 'a/../../x': '..' would leave the root", refused(() -> s.resolve(s.root(), "a/../../x")));
        assertEquals("path '/etc/passwd': absolute (paths are relative to the served root)", refused(() -> s.resolve(s.root(), "/etc/passwd")));
        assertEquals("path 'escape/x/y': 'escape' is a symlink leading outside the root", refused(() -> s.resolve(s.root(), "escape/x/y")));
        assertEquals("path 'a//b': empty or '.' component", refused(() -> s.resolve(s.root(), "a//b")));
        assertEquals("path 'bad\\nname/..': '..' would leave the root", refused(() -> s.resolve(s.root(), "bad\nname/..")));
        assertEquals(s.root().resolve("inner-link/f"), s.resolve(s.root(), "inner-link/f"), "a symlink that stays inside is fine");
        assertEquals(s.root().resolve("new dir/ü"), s.resolve(s.root(), "new dir/ü"));
    }

    @Test
    void aSymlinkTargetLeadingOutsideIsRefused() {
        SafePaths.checkLinkTarget("a/b/link", "../../c");
        SafePaths.checkLinkTarget("a/link", "x/../y");
        assertTrue(refused(() -> SafePaths.checkLinkTarget("a/link", "../../c")).endsWith("target leads outside the root"));
        assertTrue(refused(() -> SafePaths.checkLinkTarget("link", "/etc/shadow")).endsWith("absolute target leads outside the root"));
    }

    @Test
    void aTokenProofMatchesOnlyTheSameToken() {
        byte[] t = "one".getBytes(StandardCharsets.UTF_8);
        byte[] proof = TokenAuth.privateData(t);
        TokenAuth.check(t, proof);
        TokenAuth.check(null, proof);
        assertEquals("token: the client's HMAC does not match this server's token",
                assertThrows(IllegalArgumentException.class, () -> TokenAuth.check("two".getBytes(StandardCharsets.UTF_8), proof)).getMessage());
    }
}
