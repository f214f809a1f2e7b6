package org.urdma.transport.recovery;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * How one RC queue pair recovers lost packets. The requester reports what it sent and what the peer acknowledged,
 * the completer reports losses (NAK, implicit NAK, READ gap, timeout), and the policy answers through a
 * {@link Retransmitter}: go back and send everything again from a PSN, or send chosen PSNs again. The responder asks
 * what a sequence gap means. Engine thread only; takes {@code now} and never reads a clock.
 */
public interface LossRecovery {
    /** What the requester does on a retransmission decision. */
    interface Retransmitter {
        /** Resume sending at {@code psn}: every packet from there on goes out again (go-back). */
        void rewind(int psn);

        /**
         * Sends the packet {@code psn} again now, by itself, without moving where new packets continue (selective:
         * a scoreboard's resend). True when it left or no request holds it any more; false on back-pressure (ask again
         * on a later pass).
         */
        boolean resend(int psn, long now);

        /** First PSN of the message (WQE) that holds {@code psn}, or {@code psn} when none does. */
        int messageFirstPsn(int psn);

        /** The first PSN never sent (everything before it went out at least once), or -1 when unknown. */
        default int firstUnsentPsn() {
            return -1;
        }

        /** Why the packets resent next are resent (journalled with them). */
        default void resendReason(LossCause cause) {
        }
    }

    /** Makes one policy per QP; chosen by name when a connection is set up. */
    interface Factory {
        LossRecovery create();

        String name();

        /** A factory called {@code name} whose policies {@code maker} makes. */
        static Factory of(String name, Supplier<LossRecovery> maker) {
            return new Factory() {
                @Override
                public LossRecovery create() {
                    return maker.get();
                }

                @Override
                public String name() {
                    return name;
                }
            };
        }
    }

    /** The peer reported, or the timer implied, that {@code psn} is missing: decide what to resend. */
    void onLoss(int psn, LossCause cause, Retransmitter requester, long now);

    /**
     * Called on every requester pass before new packets: a policy with a scoreboard resends what it decided to here
     * (through {@link Retransmitter#resend}), decoupled from when losses were learnt. Returns packets resent.
     */
    default int retransmit(Retransmitter requester, long now) {
        return 0;
    }

    /** Whether {@link #retransmit} has PSNs waiting to be resent (the QP stays scheduled for them). */
    default boolean hasResends() {
        return false;
    }

    /** Every PSN before {@code psn} is acknowledged. */
    default void onAcknowledged(int psn, long now) {
    }

    /**
     * The receiver's SACK-ETH: every PSN before {@code cumulative} arrived, and {@code count} ranges of missing PSNs
     * ({@code length[i]} from {@code start[i]}, ascending) lie between it and the highest PSN the receiver has. Returns
     * how many ranges named PSNs this requester never sent (those PSNs are ignored: no receiver can be missing them).
     */
    default int onSack(int cumulative, int[] start, int[] length, int count, Retransmitter requester, long now) {
        for (int i = 0; i < count; i++) onLoss(start[i], LossCause.SACK, requester, now);
        return 0;
    }

    /** The requester sent the packet at {@code psn}, first or again; it takes {@code psns} PSNs (a READ, its responses'). */
    default void onSent(int psn, int psns, long now) {
    }

    /** The receiver says it has {@code psn} (a WAN ACK's AETH-EXT names the newest request it accepted). */
    default void onDelivered(int psn, long now) {
    }

    /**
     * When {@link #retransmit} has something to decide though nothing arrives (a PSN reported missing is judged lost
     * once its reorder wait ends), or Long.MAX_VALUE; the requester arms a timer for it.
     */
    default long nextCheck() {
        return Long.MAX_VALUE;
    }

    /**
     * The first PSN the requester sends (the QP's SQ PSN at RTS), before any packet. A scoreboard that started from the
     * first PSN it heard of instead could start past a loss: a SACK that lists later gaps of a full report can arrive
     * before the one listing the first, and the PSNs before it were then never resent.
     */
    default void start(int firstPsn) {
    }

    /** The most packets the requester may have unacknowledged (the device's window), told at RTR; before any packet. */
    default void window(int packets) {
    }

    /** A round-trip time measured from an ACK's AETH-EXT (WAN mode timestamps). */
    default void onRtt(long rttNanos, long now) {
    }

    /**
     * Whether this policy resends chosen PSNs and keeps its own account of what it already resent (SACK): the completer
     * then hands it every loss it learns of instead of starting one retry round (retry_cnt) per loss episode.
     */
    default boolean selective() {
        return false;
    }

    /** Responder side of a selective policy: send an ACK with SACK-ETH after this many packets (0 = only on AckReq). */
    default int ackEvery() {
        return 0;
    }

    /** Responder side of a selective policy: or after this many ns since the first unacknowledged packet arrived. */
    default long ackDelayNanos() {
        return 0;
    }

    /**
     * Responder: a request arrived after a gap while {@code expectedPsn} was expected and the message in progress
     * began at {@code messageStartPsn} (equal to expectedPsn between messages). Returns the PSN to ask for again (the
     * NAK carries it).
     */
    int expectedAfterGap(int expectedPsn, int messageStartPsn);

    /** Responder: whether a gap throws away the partly received message (go-back-0). */
    boolean discardsPartialMessage();

    /** Request an ACK every this many packets inside a message (0 = only on the last packet). */
    int ackReqInterval();

    String name();

    static Factory goBackN() {
        return GoBackN.FACTORY;
    }

    static Factory goBack0() {
        return GoBack0.FACTORY;
    }

    /** URDMA TC-SACK with its default ACK cadence ({@link Sack#DEFAULT_ACK_EVERY} packets or {@link Sack#DEFAULT_ACK_DELAY_NANOS}). */
    static Factory sack() {
        return Sack.factory(Sack.DEFAULT_ACK_EVERY, Sack.DEFAULT_ACK_DELAY_NANOS);
    }

    /** TC-SACK whose receiver ACKs every {@code ackEvery} packets or {@code ackDelayNanos}, whichever first. */
    static Factory sack(int ackEvery, long ackDelayNanos) {
        return Sack.factory(ackEvery, ackDelayNanos);
    }

    /**
     * The factory named {@code name} (go-back-n / gbn, go-back-0 / gb0, sack or sack:N/MICROS), or
     * IllegalArgumentException naming it.
     */
    static Factory named(String name) {
        String n = name.toLowerCase(Locale.ROOT).trim();
        if (n.startsWith("sack:")) {
            String[] p = n.substring(5).split("/");
            try {
                if (p.length != 2) throw new NumberFormatException();
                return sack(Integer.parseInt(p[0]), Long.parseLong(p[1]) * 1000);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("reliability: sack:N/MICROS (ACK every N packets or MICROS us), was '" + name + "'");
            }
        }
        return switch (n.replace("-", "").replace("_", "")) {
            case "gobackn", "gbn" -> goBackN();
            case "goback0", "gb0" -> goBack0();
            case "sack", "tcsack" -> sack();
            default -> throw new IllegalArgumentException("reliability: unknown '" + name + "', expected go-back-n, go-back-0 or sack[:N/MICROS]");
        };
    }
}
