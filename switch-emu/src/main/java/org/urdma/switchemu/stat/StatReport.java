package org.urdma.switchemu.stat;

import static org.urdma.transport.counters.EngineStatReport.get;

import org.urdma.transport.counters.CountersFile;
import org.agrona.concurrent.status.CountersReader;
import org.urdma.switchemu.core.SwitchCounters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import org.urdma.transport.counters.EngineStatReport;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code urdma stat}'s text: the switch counters of a counters file (labels "SW pN NAME [prio Q]", see
 * {@link SwitchCounters}) grouped per switch and port, in the layout of the counter report a switch prints
 * on exit. Given the values of a previous read and the time between, adds rates.
 */
public final class StatReport {
    /** Port peers from the file's description: lines "ports SW PEER0 PEER1 ...". */
    public static String portsLine(String switchName, List<String> peers) {
        return "ports " + switchName + " " + String.join(" ", peers);
    }

    /** Every switch counter of a file: label -> value (in registration order). */
    public static Map<String, Long> values(CountersReader reader) {
        Map<String, Long> out = new LinkedHashMap<>();
        reader.forEach((value, id, label) -> {
            if (reader.getCounterTypeId(id) == SwitchCounters.TYPE_ID) {
                out.put(label, value);
            }
        });
        return out;
    }

    private StatReport() {
    }

    /**
     * The report of one file. {@code switchName} null = every switch; {@code previous} null = no rates,
     * else the values {@code intervalNs} earlier.
     */
    public static String format(CountersFile.Snapshot file, String switchName, Map<String, Long> now,
                                Map<String, Long> previous, long intervalNs) {
        StringBuilder sb = new StringBuilder();
        long ageMs = System.currentTimeMillis() - file.heartbeatEpochMs();
        String state = switch (file.state()) {
            case STOPPED -> "stopped";
            case STARTING -> file.alive() ? "starting" : "not running (pid " + file.pid() + " gone: killed?)";
            default -> file.alive() ? "running" : "not running (pid " + file.pid() + " gone: killed?)";
        };
        double up = (file.heartbeatEpochMs() - file.startEpochMs()) / 1e3;
        sb.append(String.format(Locale.ROOT, "%s: pid %d, %s, %.1f s%s%n", file.path(), file.pid(), state, up,
            file.state() == CountersFile.State.RUNNING && ageMs > 3000 ? " (no heartbeat for " + ageMs / 1000 + " s)" : ""));
        Map<String, String[]> peers = new LinkedHashMap<>();
        for (String line : file.description().split("\n")) {
            if (line.startsWith("ports ")) {
                String[] w = line.split(" ");
                peers.put(w[1], java.util.Arrays.copyOfRange(w, 2, w.length));
            } else if (!line.isBlank()) {
                sb.append("  ").append(line).append('\n');
            }
        }
        // switch -> port -> metric -> value
        Map<String, TreeMap<Integer, Map<String, Long>>> grouped = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : now.entrySet()) {
            String[] w = e.getKey().split(" ", 3);
            if (w.length < 3 || !w[1].startsWith("p") || (switchName != null && !w[0].equals(switchName))) {
                continue;
            }
            int port;
            try {
                port = Integer.parseInt(w[1].substring(1));
            } catch (NumberFormatException notOurs) {
                continue;
            }
            grouped.computeIfAbsent(w[0], k -> new TreeMap<>()).computeIfAbsent(port, k -> new LinkedHashMap<>())
                .put(w[2], e.getValue());
        }
        if (grouped.isEmpty()) {
            sb.append(switchName == null ? "  no switch counters yet\n" : "  no counters of switch " + switchName + "\n");
        }
        for (Map.Entry<String, TreeMap<Integer, Map<String, Long>>> s : grouped.entrySet()) {
            String sw = s.getKey();
            for (Map.Entry<Integer, Map<String, Long>> p : s.getValue().entrySet()) {
                String[] pp = peers.get(sw);
                String peer = pp != null && p.getKey() < pp.length ? pp[p.getKey()] : "?";
                port(sb, sw, p.getKey(), peer, p.getValue(), previous, intervalNs,
                    (file.heartbeatEpochMs() - file.startEpochMs()) * 1_000_000L);
            }
        }
        return sb.toString();
    }

    private static void port(StringBuilder sb, String sw, int port, String peer, Map<String, Long> m,
                             Map<String, Long> previous, long intervalNs, long upNs) {
        String key = sw + " p" + port + " ";
        sb.append(String.format(Locale.ROOT, "switch %s port %d -> %s: rx %d frames %d B%s, tx %d frames %d B%s%n", sw, port,
            peer, get(m, "rx-frames"), get(m, "rx-bytes"), rate(key, "rx", m, previous, intervalNs), get(m, "tx-frames"),
            get(m, "tx-bytes"), rate(key, "tx", m, previous, intervalNs)));
        sb.append("  drops:");
        long total = 0;
        for (Map.Entry<String, Long> e : m.entrySet()) {
            if (e.getKey().startsWith("drop-") && e.getValue() != 0) {
                sb.append(' ').append(e.getKey().substring(5)).append('=').append(e.getValue());
                total += e.getValue();
            }
        }
        sb.append(total == 0 ? " 0" : "").append('\n');
        sb.append("  pfc tx (of which xon):").append(perPriority(m, "pfc-tx", "pfc-xon-tx"))
            .append("  pfc rx:").append(perPriority(m, "pfc-rx", null))
            .append("  pause rx: ").append(get(m, "pause-rx")).append('\n');
        long pfcFrames = get(m, "pfc-frames-tx");
        if (pfcFrames != 0) {
            // per second over the last interval when watching, else averaged since the switch started
            boolean watching = previous != null && intervalNs > 0;
            double perSecond = watching ? (pfcFrames - previous.getOrDefault(key + "pfc-frames-tx", 0L)) / (intervalNs / 1e9)
                : upNs > 0 ? pfcFrames / (upNs / 1e9) : 0;
            sb.append(String.format(Locale.ROOT, "  pfc frames tx: %d (%.0f/s%s)%n", pfcFrames, perSecond,
                watching ? "" : " since start"));
        }
        sb.append("  ecn marked: ").append(get(m, "ecn-marked")).append("  queue high-water B:")
            .append(perPriority(m, "queue-high-water", null)).append('\n');
        String storms = perPriority(m, "watchdog-storms", null);
        String restores = perPriority(m, "watchdog-restores", null);
        if (!storms.equals(" -") || !restores.equals(" -")) {
            sb.append("  watchdog storms:").append(storms).append("  restores:").append(restores).append('\n');
        }
    }

    private static String rate(String key, String dir, Map<String, Long> m, Map<String, Long> previous, long intervalNs) {
        if (previous == null || intervalNs <= 0) {
            return "";
        }
        double s = intervalNs / 1e9;
        double frames = (get(m, dir + "-frames") - previous.getOrDefault(key + dir + "-frames", 0L)) / s;
        double bits = (get(m, dir + "-bytes") - previous.getOrDefault(key + dir + "-bytes", 0L)) * 8 / s;
        return String.format(Locale.ROOT, " (%.0f frames/s, %s)", frames, bitRate(bits));
    }

    public static String bitRate(double bps) {
        return EngineStatReport.bitRate(bps);
    }

    private static String perPriority(Map<String, Long> m, String metric, String sub) {
        StringBuilder sb = new StringBuilder();
        for (int q = 0; q < 8; q++) {
            long v = get(m, metric + " prio " + q);
            if (v != 0) {
                sb.append(' ').append(q).append(':').append(v);
                if (sub != null) {
                    sb.append('(').append(get(m, sub + " prio " + q)).append(')');
                }
            }
        }
        return sb.length() == 0 ? " -" : sb.toString();
    }
}
