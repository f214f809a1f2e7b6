package org.urdma.transport.recovery;

/**
 * Go-back-N (DC default, as Linux rxe): resend from the first lost packet; packets the responder already took are not
 * resent. Costs up to RTT × C bytes per loss, but always makes progress. Holds no state: one instance serves every QP.
 */
public final class GoBackN implements LossRecovery {
    /** AckReq cadence inside long messages, like rxe's RXE_MAX_UNACKED_PSNS spirit (bounded unacked state). */
    public static final int ACK_REQ_INTERVAL = 64;
    private static final GoBackN INSTANCE = new GoBackN();
    static final Factory FACTORY = Factory.of(INSTANCE.name(), () -> INSTANCE);

    private GoBackN() {}

    @Override
    public void onLoss(int psn, LossCause cause, Retransmitter requester, long now) {
        requester.rewind(psn);
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
