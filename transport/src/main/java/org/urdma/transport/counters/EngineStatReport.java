package org.urdma.transport.counters;

import org.agrona.concurrent.status.CountersReader;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code urdma stat}'s text for an engine counters file ({@link EngineCounters}): per device the packet and
 * byte totals (with rates, given a previous read), the other non-zero counters, drops by reason, per-priority
 * rows; then one line per QP with non-zero counters.
 */
public final class EngineStatReport {
    private EngineStatReport() {
    }

    /** Whether a file holds engine counters (rather than a switch's). */
    public static boolean isEngine(CountersReader reader) {
        boolean[] found = {false};
        reader.forEach((value, id, label) -> found[0] |= isEngineType(reader.getCounterTypeId(id)));
        return found[0];
    }

    /** Every engine counter of a file: label -> value. */
    public static Map<String, Long> values(CountersReader reader) {
        Map<String, Long> out = new LinkedHashMap<>();
        reader.forEach((value, id, label) -> {
            if (isEngineType(reader.getCounterTypeId(id))) {
                out.put(label, value);
            }
        });
        return out;
    }

    private static boolean isEngineType(int type) {
        return type == EngineCounters.DEVICE_TYPE_ID || type == EngineCounters.PRIORITY_TYPE_ID
            || type == EngineCounters.QP_TYPE_ID;
    }

    /**
     * The report of one file. {@code deviceName} null = every device; {@code previous} null = no rates, else
     * the values {@code intervalNs} earlier.
     */
    public static String format(CountersFile.Snapshot file, String deviceName, Map<String, Long> now,
                                Map<String, Long> previous, long intervalNs) {
        StringBuilder sb = new StringBuilder();
        String state = switch (file.state()) {
            case STOPPED -> "stopped";
            case STARTING -> file.alive() ? "starting" : "not running (pid " + file.pid() + " gone: killed?)";
            default -> file.alive() ? "running" : "not running (pid " + file.pid() + " gone: killed?)";
        };
        // engines do not heartbeat (they read no clocks): a live one has been up since it started
        long end = file.alive() ? System.currentTimeMillis() : file.heartbeatEpochMs();
        sb.append(String.format(Locale.ROOT, "%s: pid %d, %s, %.1f s%n", file.path(), file.pid(), state,
            (end - file.startEpochMs()) / 1e3));
        // device -> (qp -1 = device rows) -> metric -> value
        Map<String, TreeMap<Integer, Map<String, Long>>> grouped = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : now.entrySet()) {
            String[] w = e.getKey().split(" ");
            if (deviceName != null && !w[0].equals(deviceName)) {
                continue;
            }
            int qp = -1;
            String metric;
            if (w.length == 4 && w[1].equals("qp")) {
                qp = Integer.parseInt(w[2]);
                metric = w[3];
            } else {
                metric = e.getKey().substring(w[0].length() + 1);
            }
            grouped.computeIfAbsent(w[0], k -> new TreeMap<>()).computeIfAbsent(qp, k -> new LinkedHashMap<>())
                .put(metric, e.getValue());
        }
        if (grouped.isEmpty()) {
            sb.append(deviceName == null ? "  no engine counters\n" : "  no counters of device " + deviceName + "\n");
        }
        for (Map.Entry<String, TreeMap<Integer, Map<String, Long>>> d : grouped.entrySet()) {
            for (Map.Entry<Integer, Map<String, Long>> q : d.getValue().entrySet()) {
                int qp = q.getKey();
                String key = d.getKey() + (qp < 0 ? " " : " qp " + qp + " ");
                sb.append(qp < 0 ? "device " + d.getKey() : "  qp " + qp).append(": ")
                    .append(traffic(key, q.getValue(), previous, intervalNs));
                StringBuilder other = new StringBuilder();
                StringBuilder drops = new StringBuilder();
                long dropTotal = 0;
                for (Map.Entry<String, Long> m : q.getValue().entrySet()) {
                    String metric = m.getKey();
                    long v = m.getValue();
                    if (v == 0 || metric.startsWith("sent_") || metric.startsWith("rcvd_pkts") || metric.startsWith("rcvd_bytes")) {
                        continue;
                    }
                    if (metric.startsWith("drop_")) {
                        if (!metric.contains(" prio ")) {
                            drops.append(' ').append(metric.substring(5)).append('=').append(v);
                            dropTotal += v;
                        }
                    } else {
                        other.append(' ').append(metric.replace(" prio ", "@prio")).append('=').append(v);
                    }
                }
                if (qp < 0) {
                    sb.append('\n').append("  drops:").append(dropTotal == 0 ? " 0" : drops).append('\n');
                    if (!other.isEmpty()) {
                        sb.append("  counters:").append(other).append('\n');
                    }
                } else {
                    sb.append(other).append(drops.isEmpty() ? "" : " drops:" + drops).append('\n');
                }
            }
        }
        return sb.toString();
    }

    private static String traffic(String key, Map<String, Long> m, Map<String, Long> previous, long intervalNs) {
        return String.format(Locale.ROOT, "sent %d pkts %d B%s, rcvd %d pkts %d B%s",
            get(m, "sent_pkts"), get(m, "sent_bytes"), rate(key, "sent", m, previous, intervalNs),
            get(m, "rcvd_pkts"), get(m, "rcvd_bytes"), rate(key, "rcvd", m, previous, intervalNs));
    }

    /** A metric of a counters snapshot, 0 when the file has none (the switch report reads its snapshots so too). */
    public static long get(Map<String, Long> m, String metric) {
        return m.getOrDefault(metric, 0L);
    }

    private static String rate(String key, String dir, Map<String, Long> m, Map<String, Long> previous, long intervalNs) {
        if (previous == null || intervalNs <= 0) {
            return "";
        }
        double s = intervalNs / 1e9;
        double pkts = (get(m, dir + "_pkts") - previous.getOrDefault(key + dir + "_pkts", 0L)) / s;
        double bits = (get(m, dir + "_bytes") - previous.getOrDefault(key + dir + "_bytes", 0L)) * 8 / s;
        return String.format(Locale.ROOT, " (%.0f pkts/s, %s)", pkts, bitRate(bits));
    }

    /** A bit rate for people: Gbit/s, Mbit/s or kbit/s (engine and switch reports alike). */
    public static String bitRate(double bps) {
        if (bps >= 1e9) {
            return String.format(Locale.ROOT, "%.2f Gbit/s", bps / 1e9);
        }
        if (bps >= 1e6) {
            return String.format(Locale.ROOT, "%.1f Mbit/s", bps / 1e6);
        }
        return String.format(Locale.ROOT, "%.0f kbit/s", bps / 1e3);
    }
}
