package org.urdma.tools.perf;

import java.util.EnumSet;
import java.util.Set;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WrOpcode;

/** The eight perftest programs: what each posts, how it is measured, and which services it runs on. */
public enum PerfTest {
    WRITE_BW("write-bw", "RDMA_Write BW Test", WrOpcode.RDMA_WRITE, Pattern.WINDOW, EnumSet.of(QpType.RC, QpType.UC)),
    READ_BW("read-bw", "RDMA_Read BW Test", WrOpcode.RDMA_READ, Pattern.WINDOW, EnumSet.of(QpType.RC)),
    SEND_BW("send-bw", "Send BW Test", WrOpcode.SEND, Pattern.WINDOW, EnumSet.allOf(QpType.class)),
    ATOMIC_BW("atomic-bw", "Atomic %s BW Test", null, Pattern.WINDOW, EnumSet.of(QpType.RC)),
    WRITE_LAT("write-lat", "RDMA_Write Latency Test", WrOpcode.RDMA_WRITE, Pattern.PING_PONG, EnumSet.of(QpType.RC, QpType.UC)),
    READ_LAT("read-lat", "RDMA_Read Latency Test", WrOpcode.RDMA_READ, Pattern.ROUND_TRIP, EnumSet.of(QpType.RC)),
    SEND_LAT("send-lat", "Send Latency Test", WrOpcode.SEND, Pattern.PING_PONG, EnumSet.allOf(QpType.class)),
    ATOMIC_LAT("atomic-lat", "Atomic %s Latency Test", null, Pattern.ROUND_TRIP, EnumSet.of(QpType.RC));

    /**
     * WINDOW: tx-depth requests in flight (bandwidth). PING_PONG: each side answers the other's message, half the
     * round trip is reported (send, write). ROUND_TRIP: the client alone, one request at a time, the full round
     * trip is reported (read, atomics: perftest's rtt_factor 1).
     */
    enum Pattern { WINDOW, PING_PONG, ROUND_TRIP }

    final String command;
    private final String title;
    private final WrOpcode opcode;
    final Pattern pattern;
    final Set<QpType> services;

    PerfTest(String command, String title, WrOpcode opcode, Pattern pattern, Set<QpType> services) {
        this.command = command;
        this.title = title;
        this.opcode = opcode;
        this.pattern = pattern;
        this.services = services;
    }

    boolean bandwidth() {
        return pattern == Pattern.WINDOW;
    }

    boolean atomic() {
        return opcode == null;
    }

    WrOpcode opcode(PerfOptions o) {
        return opcode != null ? opcode : atomicOpcode(o);
    }

    String title(PerfOptions o) {
        return atomic() ? String.format(title, atomicName(o)) : o.mcg ? title.replace(" Test", " Multicast Test") : title;
    }

    /** Whether the peer (server) must take part actively: it receives SENDs or answers the ping. */
    boolean serverActive() {
        return opcode == WrOpcode.SEND || pattern == Pattern.PING_PONG;
    }

    static String atomicName(PerfOptions o) {
        return atomicOpcode(o) == WrOpcode.ATOMIC_CMP_AND_SWP ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
    }

    static WrOpcode atomicOpcode(PerfOptions o) {
        return switch (o.atomicType.toUpperCase(java.util.Locale.ROOT)) {
            case "CMP_AND_SWAP" -> WrOpcode.ATOMIC_CMP_AND_SWP;
            case "FETCH_AND_ADD" -> WrOpcode.ATOMIC_FETCH_AND_ADD;
            default -> throw new IllegalArgumentException("-A: CMP_AND_SWAP or FETCH_AND_ADD, was '" + o.atomicType + "'");
        };
    }
}
