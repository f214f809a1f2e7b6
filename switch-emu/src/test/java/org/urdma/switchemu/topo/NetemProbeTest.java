package org.urdma.switchemu.topo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class NetemProbeTest {
    @TempDir
    Path root;

    @Test
    void findsLoadedBuiltInModuleOrNothing() throws Exception {
        assertEquals(NetemProbe.Result.ABSENT, NetemProbe.probe(root, "6.1.0"));
        Path modules = Files.createDirectories(root.resolve("lib/modules/6.1.0"));
        Files.writeString(modules.resolve("modules.dep"), "kernel/net/sched/sch_netem.ko.xz:\n");
        assertEquals(NetemProbe.Result.MODULE, NetemProbe.probe(root, "6.1.0"));
        Files.writeString(modules.resolve("modules.builtin"), "kernel/net/sched/sch_netem.ko\n");
        assertEquals(NetemProbe.Result.LOADED, NetemProbe.probe(root, "6.1.0"));
        Files.delete(modules.resolve("modules.builtin"));
        Files.createDirectories(root.resolve("sys/module/sch_netem"));
        assertEquals(NetemProbe.Result.LOADED, NetemProbe.probe(root, "6.1.0"));
    }
}
