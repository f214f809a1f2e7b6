package org.urdma.transport.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/reference/journal-events.md has a row per event type showing the fields it prints, and every retransmit reason. */
class JournalReferenceTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Z_]+)` \\| ([^|]*)\\|", Pattern.MULTILINE);
    private static final Pattern FIELD = Pattern.compile("([a-z_]+)=");

    private static Map<String, String> rows(String section) throws Exception {
        String page = Files.readString(Path.of("../docs/reference/journal-events.md"));
        String begin = "<!-- " + section + ":begin -->", end = "<!-- " + section + ":end -->";
        Matcher m = ROW.matcher(page.substring(page.indexOf(begin), page.indexOf(end)));
        Map<String, String> rows = new LinkedHashMap<>();
        while (m.find()) rows.put(m.group(1), m.group(2).strip());
        return rows;
    }

    @Test
    void everyEventTypeHasARowWithTheFieldsItPrints() throws Exception {
        Map<String, String> rows = rows("journal-events");
        assertEquals(Stream.of(EventType.values()).map(Enum::name).toList(), List.copyOf(rows.keySet()),
                "event types on the page, in the code's order");
        for (EventType t : EventType.values()) {
            String fields = new JournalEvent(0, 0, t, 0, "d", 1, 0, 0, 0).fields();
            Matcher f = FIELD.matcher(fields);
            StringBuilder names = new StringBuilder();
            while (f.find()) names.append(names.isEmpty() ? "" : " ").append('`').append(f.group(1)).append("=`");
            assertEquals(names.toString(), rows.get(t.name()), t + " prints " + fields);
        }
    }

    @Test
    void everyRetransmitReasonHasARow() throws Exception {
        Map<String, String> rows = rows("retransmit-reasons");
        assertEquals(Stream.of(RetransmitReason.values()).map(Enum::name).toList(), List.copyOf(rows.keySet()));
        rows.forEach((reason, meaning) -> assertTrue(!meaning.isBlank(), reason));
    }
}
