package org.urdma.transport.journal;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Aeth;
import org.urdma.verbs.QpState;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * One journal entry as read back ({@link JournalReader}): when the journal agent took it from the ring
 * (epoch ns), the engine's time for it (ns), the device, the QP (-1: none), the type and its fields (see
 * {@link EventType}).
 */
public record JournalEvent(long epochNs, long timeNs, EventType type, int deviceId, String device, int qpn,
                           int a, int b, int c) {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS", Locale.ROOT);

    /** One line: wall time, engine time, device, qp, type, fields. */
    public String format(ZoneId zone) {
        LocalDateTime wall = LocalDateTime.ofInstant(Instant.ofEpochSecond(0, epochNs), zone);
        return String.format(Locale.ROOT, "%s t=%d %s qp %s %s %s", TIME.format(wall), timeNs, device,
            qpn < 0 ? "-" : Integer.toString(qpn), type, fields());
    }

    /** The type's fields as name=value words. */
    public String fields() {
        return switch (type) {
            case QP_STATE -> "from=" + state(a) + " to=" + state(b);
            case RETRANSMIT -> "first_psn=" + a + " count=" + b + " reason=" + reason(c);
            case NAK_SENT, NAK_RCVD -> "psn=" + a + " syndrome=" + syndrome(b);
            case RNR_NAK_SENT, RNR_NAK_RCVD -> "psn=" + a + " syndrome=" + syndrome(b);
            case CNP_SENT, CNP_RCVD, CNP_MERGED -> "psn=" + a;
            case PAUSE_ON, PAUSE_OFF -> "prio=" + (a < 0 ? "all" : Integer.toString(a)) + " quanta=" + b;
            case DROP -> {
                Counter r = Counter.of(a);
                yield "reason=" + (r == null ? "#" + a : r.label()) + " psn=" + b;
            }
            case FEC_REPAIRED -> "psn=" + a + " by=" + b;
            case LOST -> "count=" + a + " (ring full: events before this one are missing)";
            case DEVICE -> "id=" + deviceId;
        };
    }

    private static String state(int ordinal) {
        QpState[] s = QpState.values();
        return ordinal >= 0 && ordinal < s.length ? s[ordinal].name() : "#" + ordinal;
    }

    private static String reason(int ordinal) {
        RetransmitReason[] r = RetransmitReason.values();
        return ordinal >= 0 && ordinal < r.length ? r[ordinal].name() : "#" + ordinal;
    }

    /** The AETH syndrome byte, and what it says. */
    static String syndrome(int syndrome) {
        String hex = String.format(Locale.ROOT, "0x%02x", syndrome & 0xFF);
        int v = Aeth.value(syndrome);
        return switch (Aeth.type(syndrome)) {
            case Aeth.TYPE_RNR_NAK -> hex + " (rnr timer " + Aeth.rnrTimerMicros(v) + " us)";
            case Aeth.TYPE_NAK -> hex + switch (v) {
                case Aeth.NAK_PSN_SEQUENCE_ERROR -> " (psn sequence error)";
                case Aeth.NAK_INVALID_REQUEST -> " (invalid request)";
                case Aeth.NAK_REMOTE_ACCESS_ERROR -> " (remote access error)";
                case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> " (remote operational error)";
                case Aeth.NAK_INVALID_RD_REQUEST -> " (invalid rd request)";
                default -> " (reserved nak code " + v + ")";
            };
            default -> hex;
        };
    }
}
