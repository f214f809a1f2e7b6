package org.urdma.switchemu.topo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads the HPCC simulator's topology text ({@code simulation/mix/*.txt}): a line {@code nodes switches links}, a
 * line of the switch node ids, then one line per link {@code a b rate delay error_rate} (e.g. {@code 0 320 100Gbps
 * 1000ns 0}). Nodes that are not switches are hosts. It becomes topology YAML: node {@code i} is host {@code hI} or
 * switch {@code sI}, every switch with the given {@link FabricSettings} (their buffer sized for the fastest host
 * link when they are HPCC's), a link's error rate its loss.
 */
public final class HpccTopologyFile {
    private static final Pattern HEADER = Pattern.compile("\\s*\\d+\\s+\\d+\\s+\\d+\\s*");

    private HpccTopologyFile() {
    }

    /** Whether {@code text} looks like HPCC's format (its first non-blank line is three whole numbers). */
    public static boolean looksLike(String text) {
        for (String line : text.split("\n", 50)) {
            if (!line.isBlank()) return HEADER.matcher(line).matches();
        }
        return false;
    }

    /** The host link rate of an HPCC topology (the fastest link with a host end), for {@link FabricSettings#hpcc}. */
    public static long hostRate(String text, String source) {
        Parsed p = parse(text, source);
        long max = 0;
        for (String[] l : p.links) {
            if (!p.isSwitch[Integer.parseInt(l[0])] || !p.isSwitch[Integer.parseInt(l[1])]) max = Math.max(max, Units.rateBps(l[2]));
        }
        return max;
    }

    /** The topology as YAML (what {@code urdma topo import} writes). */
    public static String toYaml(String text, String source, FabricSettings s) {
        Parsed p = parse(text, source);
        StringBuilder sb = new StringBuilder("# imported from HPCC topology ").append(source).append(": ").append(p.nodes)
            .append(" nodes, ").append(p.switches).append(" switches, ").append(p.links.size()).append(" links\n");
        sb.append("hosts:\n");
        for (int i = 0; i < p.nodes; i++) {
            if (!p.isSwitch[i]) sb.append(FabricGenerator.host(i, s.priority()));
        }
        sb.append("switches:\n");
        for (int i = 0; i < p.nodes; i++) {
            if (p.isSwitch[i]) sb.append(s.switchYaml("s" + i, i));
        }
        sb.append("links:\n");
        for (String[] l : p.links) {
            int a = Integer.parseInt(l[0]);
            int b = Integer.parseInt(l[1]);
            double loss = Double.parseDouble(l[4]);
            sb.append(String.format(Locale.ROOT, "  - {endpoints: [%s, %s], rate: %s, delay: %s, mtu: %d%s}%n", (p.isSwitch[a] ? "s" : "h") + a,
                    (p.isSwitch[b] ? "s" : "h") + b, l[2], l[3], s.linkMtu(), loss > 0 ? ", impair: {loss: " + l[4] + "}" : ""));
        }
        return sb.toString();
    }

    /** Parses and checks HPCC text into a {@link Topology} with HPCC's switch settings for its host rate. */
    public static Topology read(String text, String source) {
        return TopologyParser.parse(toYaml(text, source, FabricSettings.hpcc(hostRate(text, source))), source);
    }

    private record Parsed(int nodes, int switches, boolean[] isSwitch, List<String[]> links) {
    }

    private static Parsed parse(String text, String source) {
        String[] lines = text.split("\r?\n");
        int at = 0;
        while (at < lines.length && lines[at].isBlank()) at++;
        if (at >= lines.length || !HEADER.matcher(lines[at]).matches()) {
            throw new TopologyException(source, at + 1, "expected HPCC's first line: nodes switches links (three numbers)");
        }
        String[] h = lines[at].trim().split("\\s+");
        int nodes = Integer.parseInt(h[0]);
        int switches = Integer.parseInt(h[1]);
        int links = Integer.parseInt(h[2]);
        if (nodes < 2 || nodes > 65_535 || switches < 1 || switches >= nodes) {
            throw new TopologyException(source, at + 1, "nodes must be 2..65535 and switches 1..nodes-1, got " + nodes + " " + switches);
        }
        boolean[] isSwitch = new boolean[nodes];
        at++;
        List<String> ids = new ArrayList<>();
        int idLine = at + 1;
        while (ids.size() < switches && at < lines.length) {
            for (String x : lines[at++].trim().split("\\s+")) if (!x.isEmpty()) ids.add(x);
        }
        if (ids.size() != switches) {
            throw new TopologyException(source, idLine, "expected " + switches + " switch ids, found " + ids.size());
        }
        for (String x : ids) {
            int id = number(x, source, idLine, nodes, "switch id");
            isSwitch[id] = true;
        }
        List<String[]> out = new ArrayList<>();
        for (; at < lines.length && out.size() < links; at++) {
            if (lines[at].isBlank()) continue;
            String[] f = lines[at].trim().split("\\s+");
            if (f.length < 4) throw new TopologyException(source, at + 1, "a link is: src dst rate delay [error_rate], got '" + lines[at].trim() + "'");
            number(f[0], source, at + 1, nodes, "link src");
            number(f[1], source, at + 1, nodes, "link dst");
            String rate = f[2];
            String delay = f[3];
            try {
                Units.rateBps(rate);
                Units.nanos(delay);
            } catch (IllegalArgumentException e) {
                throw new TopologyException(source, at + 1, e.getMessage());
            }
            String loss = f.length > 4 ? f[4] : "0";
            try {
                double v = Double.parseDouble(loss);
                if (v < 0 || v > 1) throw new NumberFormatException();
            } catch (NumberFormatException e) {
                throw new TopologyException(source, at + 1, "error_rate must be a fraction 0..1, got '" + loss + "'");
            }
            out.add(new String[] {f[0], f[1], rate, delay, loss});
        }
        if (out.size() != links) throw new TopologyException(source, at + 1, "expected " + links + " links, found " + out.size());
        return new Parsed(nodes, switches, isSwitch, out);
    }

    private static int number(String x, String source, int line, int nodes, String what) {
        try {
            int v = Integer.parseInt(x);
            if (v < 0 || v >= nodes) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new TopologyException(source, line, what + " must be a node id 0.." + (nodes - 1) + ", got '" + x + "'");
        }
    }
}
