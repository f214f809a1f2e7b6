package org.urdma.switchemu.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;

/** docs/reference/counters.md lists a switch port's counters as SwitchCounters labels them, per priority or not. */
class SwitchCounterReferenceTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z-]+)` \\| (yes|no) \\|", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("s1 p0 ([a-z-]+)( prio [0-7])?");

    @Test
    void theCountersPageListsEverySwitchPortCounter() throws Exception {
        SwitchConfig c = new SwitchConfig();
        c.port(new PortConfig());
        SwitchCore core = new SwitchCore(c, (port, buffer, offset, length, start, end) -> { }, new SplittableRandom(1));
        CountersManager manager = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 1024)), new UnsafeBuffer(ByteBuffer.allocateDirect(256 * 1024)));
        Map<String, String> published = new LinkedHashMap<>();
        try (SwitchCounters counters = new SwitchCounters("s1", core, manager)) {
            manager.forEach((value, id, label) -> {
                Matcher m = LABEL.matcher(label);
                if (m.matches()) published.put(m.group(1), m.group(2) == null ? "no" : "yes");
            });
        }
        String page = Files.readString(Path.of("../docs/reference/counters.md"));
        String table = page.substring(page.indexOf("<!-- switch-counters:begin -->"), page.indexOf("<!-- switch-counters:end -->"));
        Map<String, String> documented = new LinkedHashMap<>();
        Matcher m = ROW.matcher(table);
        while (m.find()) documented.put(m.group(1), m.group(2));
        assertEquals(published, documented, "switch counters (name -> per priority) published vs on the page");
    }
}
