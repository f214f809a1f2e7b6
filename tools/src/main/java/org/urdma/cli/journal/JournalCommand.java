package org.urdma.cli.journal;

import org.urdma.cli.Range;

import org.urdma.transport.counters.StatDirectory;
import org.urdma.transport.journal.EventType;
import org.urdma.transport.journal.JournalReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code urdma journal [DIR | --name DEV] [--follow] [--qp N] [--type T] [--since TIME]}: engine events, one a line. */
@Command(
    name = "journal",
    mixinStandardHelpOptions = true,
    description = {"Prints the events engines journaled: QP state changes, retransmissions, NAKs, CNPs, PFC pause and"
        + " drops.",
        "The journals are Chronicle Queue directories engine-DEV-PID.journal beside the counters files. Events:"
        + " QP state changes, retransmissions (which PSNs, why), NAKs and RNR NAKs sent and received, CNPs"
        + " sent/received/merged, PFC pause on/off, drops with their reason. One line each: wall time the journal"
        + " took it, engine time (t=, ns), device, qp, type, fields. LOST lines say the ring was full and events are"
        + " missing (they pass --qp and --type). DIR: one journal; --name: every journal's events of that device;"
        + " neither: every journal found."})
public final class JournalCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "a journal directory")
    Path journal;

    @Option(names = "--name", paramLabel = "DEV", description = "only this device's events")
    String name;

    @Option(names = "--dir", paramLabel = "DIR", description = "where to look for journals (default: $URDMA_STAT_DIR, "
        + "else every /dev/shm/urdma-* directory)")
    Path dir;

    @Option(names = {"-f", "--follow"}, description = "keep printing events as they are written, until stopped")
    boolean follow;

    @Range(min = 0, max = 0xFFFFFF)
    @Option(names = "--qp", paramLabel = "N", description = "only this QP (decimal, or 0x hex)", converter = QpnConverter.class)
    Integer qpn;

    @Option(names = "--type", paramLabel = "T", split = ",", description = "only these types, comma-separated: "
        + "QP_STATE, RETRANSMIT, NAK_SENT, NAK_RCVD, RNR_NAK_SENT, RNR_NAK_RCVD, CNP_SENT, CNP_RCVD, CNP_MERGED, PAUSE_ON, "
        + "PAUSE_OFF, DROP", converter = TypeConverter.class)
    List<EventType> types;

    @Option(names = "--since", paramLabel = "TIME", converter = SinceConverter.class, description = "only events from "
        + "TIME: an ISO date-time (2026-01-31T12:00:00[Z]), a time of today (12:00:00[.123]), or an age (30s, 5m, 2h, 1d)")
    Instant since;

    @Range(min = 1, max = 60_000)
    @Option(names = "--interval", paramLabel = "MS", defaultValue = "200", description = "--follow: poll period "
        + "(default: ${DEFAULT-VALUE})")
    long intervalMs;

    @Range(min = 1)
    @Option(names = "--count", paramLabel = "N", description = "--follow: stop after N polls (default: until stopped)")
    int count;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        List<Path> journals = journal != null ? List.of(journal)
            : JournalReader.find(dir != null ? List.of(dir) : StatDirectory.forReading());
        if (journals.isEmpty()) {
            out.println("no journals in " + (dir != null ? List.of(dir) : StatDirectory.forReading())
                + " (an engine writes one when its journal is on)");
            return 1;
        }
        JournalReader.Filter filter = new JournalReader.Filter(name, qpn, types == null ? null : EnumSet.copyOf(types),
            since == null ? Long.MIN_VALUE : epochNs(since));
        ZoneId zone = ZoneId.systemDefault();
        List<JournalReader> readers = new ArrayList<>();
        try {
            for (Path j : journals) {
                readers.add(JournalReader.open(j));
            }
            long printed = 0;
            for (int n = 1; ; n++) {
                for (JournalReader r : readers) {
                    printed += r.poll(filter, e -> out.println(e.format(zone)));
                }
                out.flush();
                if (!follow || (count > 0 && n >= count)) {
                    return printed == 0 && name != null && readers.stream().noneMatch(r -> r.devices().containsValue(name))
                        ? noSuchDevice(out) : 0;
                }
                Thread.sleep(Math.max(10, intervalMs));
            }
        } finally {
            for (JournalReader r : readers) {
                r.close();
            }
        }
    }

    /** Epoch ns, saturated (a --since past 2262 matches nothing rather than overflowing). */
    private static long epochNs(Instant t) {
        try {
            return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
        } catch (ArithmeticException e) {
            return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private int noSuchDevice(PrintStream out) {
        out.println("no journal has events of device " + name);
        return 1;
    }

    static final class QpnConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String v) {
            try {
                int q = v.startsWith("0x") || v.startsWith("0X") ? Integer.parseInt(v.substring(2), 16) : Integer.parseInt(v);
                if (q < 0 || q > 0xFFFFFF) {
                    throw new TypeConversionException("a QPN is 0..0xffffff, was " + v);
                }
                return q;
            } catch (NumberFormatException e) {
                throw new TypeConversionException("not a QP number: " + v);
            }
        }
    }

    static final class TypeConverter implements ITypeConverter<EventType> {
        @Override
        public EventType convert(String v) {
            try {
                EventType t = EventType.valueOf(v.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
                if (t != EventType.DEVICE) {
                    return t;
                }
            } catch (IllegalArgumentException e) {
                // said below
            }
            throw new TypeConversionException("no event type " + v + " (one of " + EnumSet.complementOf(EnumSet.of(EventType.DEVICE)) + ")");
        }
    }

    /** An ISO date-time (with or without zone), a time of today, or an age ("30s", "5m", "2h", "1d", "500ms"). */
    static final class SinceConverter implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String v) {
            String s = v.trim();
            java.util.regex.Matcher age = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h|d)").matcher(s);
            if (age.matches()) {
                long n = Long.parseLong(age.group(1));
                Duration d = switch (age.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
                return Instant.now().minus(d);
            }
            try {
                return Instant.parse(s);
            } catch (DateTimeParseException notInstant) {
                // try the local forms
            }
            try {
                return LocalDateTime.parse(s).atZone(ZoneId.systemDefault()).toInstant();
            } catch (DateTimeParseException notLocal) {
                // try a time of today
            }
            try {
                return LocalTime.parse(s).atDate(LocalDate.now()).atZone(ZoneId.systemDefault()).toInstant();
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("not a time: " + v + " (2026-01-31T12:00:00, 12:00:00, or an age: 30s, 5m, 2h)");
            }
        }
    }
}
