package org.urdma.verbs;

/** Arguments to create a queue pair ({@code ibv_qp_init_attr}). */
public final class QpInitAttributes {
    private QpType type = QpType.RC;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private int maxSendWr = 128;
    private int maxRecvWr = 128;
    private int maxSendSge = 4;
    private int maxRecvSge = 4;
    private int maxInlineData = 64;
    private boolean sqSigAll;

    public QpInitAttributes type(QpType v) {
        if (v == null) throw new IllegalArgumentException("qp_type: must not be null");
        type = v; return this;
    }
    public QpInitAttributes sendCq(CompletionQueue v) { sendCq = v; return this; }
    public QpInitAttributes recvCq(CompletionQueue v) { recvCq = v; return this; }
    public QpInitAttributes srq(SharedReceiveQueue v) { srq = v; return this; }
    public QpInitAttributes maxSendWr(int v) { maxSendWr = positive("cap.max_send_wr", v); return this; }
    public QpInitAttributes maxRecvWr(int v) { maxRecvWr = positive("cap.max_recv_wr", v); return this; }
    public QpInitAttributes maxSendSge(int v) { maxSendSge = positive("cap.max_send_sge", v); return this; }
    public QpInitAttributes maxRecvSge(int v) { maxRecvSge = positive("cap.max_recv_sge", v); return this; }
    public QpInitAttributes maxInlineData(int v) {
        if (v < 0) throw new IllegalArgumentException("cap.max_inline_data: must be >= 0, was " + v);
        maxInlineData = v; return this;
    }
    public QpInitAttributes sqSigAll(boolean v) { sqSigAll = v; return this; }

    private static int positive(String field, int v) {
        if (v <= 0) throw new IllegalArgumentException(field + ": must be > 0, was " + v);
        return v;
    }

    public QpType type() { return type; }
    public CompletionQueue sendCq() { return sendCq; }
    public CompletionQueue recvCq() { return recvCq; }
    public SharedReceiveQueue srq() { return srq; }
    public int maxSendWr() { return maxSendWr; }
    public int maxRecvWr() { return maxRecvWr; }
    public int maxSendSge() { return maxSendSge; }
    public int maxRecvSge() { return maxRecvSge; }
    public int maxInlineData() { return maxInlineData; }
    public boolean sqSigAll() { return sqSigAll; }
}
