package org.urdma.transport.reliability;

/**
 * How an RC connection recovers lost packets. The requester asks where to resend from after a NAK or a
 * timeout; the responder asks what to expect after a sequence gap. Pure functions of PSNs.
 */
public interface Reliability {
    /** PSN the requester resends from after a loss at {@code lostPsn} inside a message starting at {@code messageFirstPsn}. */
    int restartPsn(int lostPsn, int messageFirstPsn);

    /**
     * The responder saw a PSN after the expected one. Returns the PSN it now expects (the NAK carries it):
     * the missing one (go-back-N) or the start of the message in progress (go-back-0, partial message discarded).
     */
    int expectedAfterGap(int expectedPsn, int messageStartPsn);

    /** Whether the responder discards a partially received message on a gap. */
    boolean discardsPartialMessage();

    /** Request an ACK every this many packets inside a message (0 = only on the last packet). */
    int ackReqInterval();

    String name();

    static Reliability goBackN() {
        return GoBackN.INSTANCE;
    }

    static Reliability goBack0() {
        return GoBack0.INSTANCE;
    }

    static Reliability named(String name) {
        return switch (name.toLowerCase(java.util.Locale.ROOT).replace("-", "").replace("_", "")) {
            case "gobackn", "gbn" -> goBackN();
            case "goback0", "gb0" -> goBack0();
            default -> throw new IllegalArgumentException("reliability: unknown '" + name + "', expected go-back-n or go-back-0");
        };
    }
}
