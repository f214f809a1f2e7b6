package org.urdma.transport.reliability;

/**
 * Go-back-N (DC default, as Linux rxe): resend from the first lost packet; packets the responder already
 * took are not resent. Costs up to RTT × C bytes per loss, but always makes progress.
 */
public final class GoBackN implements Reliability {
    static final GoBackN INSTANCE = new GoBackN();
    /** AckReq cadence inside long messages, like rxe's RXE_MAX_UNACKED_PSNS spirit (bounded unacked state). */
    public static final int ACK_REQ_INTERVAL = 64;

    private GoBackN() {}

    @Override
    public int restartPsn(int lostPsn, int messageFirstPsn) {
        return lostPsn;
    }

    @Override
    public int expectedAfterGap(int expectedPsn, int messageStartPsn) {
        return expectedPsn;
    }

    @Override
    public boolean discardsPartialMessage() {
        return false;
    }

    @Override
    public int ackReqInterval() {
        return ACK_REQ_INTERVAL;
    }

    @Override
    public String name() {
        return "go-back-N";
    }
}
