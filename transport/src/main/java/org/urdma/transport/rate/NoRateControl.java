package org.urdma.transport.rate;

/** No pacing: the window and the link are the only limits (the DC default). Stateless: one instance serves every QP. */
final class NoRateControl implements RateControl {
    private static final NoRateControl INSTANCE = new NoRateControl();
    static final Factory FACTORY = Factory.of(INSTANCE.name(), () -> INSTANCE);

    @Override
    public long nextSendTime(long now) {
        return Long.MIN_VALUE;
    }

    @Override
    public void onSent(int payloadBytes, long now) {
    }

    @Override
    public String name() {
        return "none";
    }
}
