package org.urdma.transport.counters;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/reference/counters.md lists every engine counter as the code names it, in the code's order. */
class CounterReferenceTest {
    @Test
    void theCountersPageListsEveryEngineCounterWithItsScopeAndMeaning() throws Exception {
        String page = Files.readString(Path.of("../docs/reference/counters.md"));
        String begin = "<!-- engine-counters:begin -->\n", end = "<!-- engine-counters:end -->";
        String table = page.substring(page.indexOf(begin) + begin.length(), page.indexOf(end));
        String expected = Stream.concat(Stream.of("| name | scope | meaning |", "|---|---|---|"),
                Stream.of(Counter.values()).map(c -> "| `" + c.label() + "` | " + c.scope().name().toLowerCase(Locale.ROOT)
                        + " | " + c.description() + " |"))
                .collect(Collectors.joining("\n", "", "\n"));
        assertEquals(expected, table, "docs/reference/counters.md's engine table differs from Counter; put this there:\n" + expected);
    }
}
