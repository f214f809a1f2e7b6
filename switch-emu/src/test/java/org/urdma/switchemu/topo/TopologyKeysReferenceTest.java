package org.urdma.switchemu.topo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/reference/topology-keys.md lists, per section, exactly the keys the parser accepts there: the parser's own
 * "unknown key" error names them, so each case puts an unknown key into that section.
 */
class TopologyKeysReferenceTest {
    private static final String TWO = "hosts: [{name: h1}, {name: h2}]\nswitches: [{name: s1}]\n";
    private static final String LINKS = "links: [{endpoints: [h1, s1], rate: 1G}, {endpoints: [s1, h2], rate: 1G}]\n";
    private static final Pattern KNOWN = Pattern.compile("\\(known: ([^)]*)\\)");
    private static final Pattern KEY = Pattern.compile("^\\| `([A-Za-z0-9]+)` \\|", Pattern.MULTILINE);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "top; bogus: 1",
        "host; hosts: [{name: h1, bogus: 1}]",
        "switch; switches: [{name: s1, bogus: 1}]",
        "ecn; switches: [{name: s1, ecn: {bogus: 1}}]",
        "watchdog; switches: [{name: s1, watchdog: {bogus: 1}}]",
        "link; TWO links: [{endpoints: [h1, s1], rate: 1G, bogus: 1}]",
        "dropPsns; TWO links: [{endpoints: [h1, s1], rate: 1G, dropPsns: {bogus: 1}}]",
        "impair; TWO links: [{endpoints: [h1, s1], rate: 1G, impair: {bogus: 1}}]",
        "gemodel; TWO links: [{endpoints: [h1, s1], rate: 1G, impair: {gemodel: {bogus: 1}}}]",
        "state; TWO links: [{endpoints: [h1, s1], rate: 1G, impair: {state: {bogus: 1}}}]",
        "flow; TWO LINKS flows: [{bogus: 1}]",
        "workload; TWO LINKS workloads: [{bogus: 1}]",
    })
    void thePageListsExactlyTheKeysTheParserAccepts(String section, String yaml) throws Exception {
        String text = yaml.replace("TWO ", TWO).replace("LINKS ", LINKS).replace("; ", "\n");
        TopologyException e = assertThrows(TopologyException.class, () -> TopologyParser.parse(text, "t.yaml"));
        Matcher known = KNOWN.matcher(e.getMessage());
        if (!known.find()) throw new AssertionError("no list of known keys in: " + e.getMessage());
        Set<String> accepted = new TreeSet<>(Arrays.asList(known.group(1).split(", ")));
        assertEquals(accepted, documented(section), "keys of " + section + ": parser vs docs/reference/topology-keys.md");
    }

    private static Set<String> documented(String section) throws Exception {
        String page = Files.readString(Path.of("../docs/reference/topology-keys.md"));
        String marker = "<!-- keys:" + section + " -->";
        int from = page.indexOf(marker);
        if (from < 0) throw new AssertionError("no " + marker + " on the page");
        int to = page.indexOf("<!-- keys:", from + marker.length());
        Matcher m = KEY.matcher(page.substring(from, to < 0 ? page.length() : to));
        Set<String> keys = new TreeSet<>();
        while (m.find()) keys.add(m.group(1));
        return keys;
    }
}
