package org.urdma.transport.recovery;

/**
 * Go-back-0: on any loss the whole message restarts from its first packet and the responder throws away what it had
 * of it; no state per packet on either side. Exists only to reproduce the SIGCOMM 2016 livelock (Guo et al., "RDMA
 * over Commodity Ethernet at Scale", §4.1): with a deterministic drop of one packet in 256, a 4 MB message (1000+
 * packets) can never get through. Holds no state: one instance serves every QP.
 */
public final class GoBack0 implements LossRecovery {
    private static final GoBack0 INSTANCE = new GoBack0();
    static final Factory FACTORY = Factory.of(INSTANCE.name(), () -> INSTANCE);

    private GoBack0() {}

    @Override
    public void onLoss(int psn, LossCause cause, Retransmitter requester, long now) {
        requester.rewind(requester.messageFirstPsn(psn));
    }

    @Override
    public int expectedAfterGap(int expectedPsn, int messageStartPsn) {
        return messageStartPsn;
    }

    @Override
    public boolean discardsPartialMessage() {
        return true;
    }

    @Override
    public int ackReqInterval() {
        return 0;
    }

    @Override
    public String name() {
        return "go-back-0";
    }
}
