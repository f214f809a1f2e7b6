package org.urdma.switchemu.world;

/**
 * What one workload achieved: messages and bytes completed, the time from its start to its last completion,
 * goodput over that time, completions in error, packets its requester sent again, and whether the memory the
 * data went to holds what was sent (null when not checked).
 */
public record FlowResult(String name, String from, String to, String op, String policies, long messages, long bytes,
                         long startNs, long lastCompletionNs, long errors, long retransmitted, Boolean memoryVerified) {
    public double goodputGbps() {
        long span = lastCompletionNs - startNs;
        return span <= 0 ? 0 : bytes * 8.0 / span;
    }

    /** One CSV line in the order of {@link #CSV_HEADER}. */
    public String csv() {
        return String.format(java.util.Locale.ROOT, "%s,%s,%s,%s,\"%s\",%d,%d,%d,%d,%.6f,%d,%d,%s", name, from, to, op,
                policies, messages, bytes, startNs, lastCompletionNs, goodputGbps(), errors, retransmitted,
                memoryVerified == null ? "" : memoryVerified.toString());
    }

    public static final String CSV_HEADER =
            "flow,from,to,op,policies,messages,bytes,start_ns,last_completion_ns,goodput_gbps,errors,retransmitted,verified";
}
