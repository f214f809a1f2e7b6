package org.urdma.verbs;

/**
 * Queue pair attributes for {@link QueuePair#modify} and {@link QueuePair#query}, as {@code ibv_qp_attr}.
 * Only the fields named in the attribute mask are applied. Setters check ranges; transitions are checked
 * by {@link QpTransitions}.
 */
public final class QpAttributes {
    private QpState state = QpState.RESET;
    private QpState curState = QpState.RESET;
    private int accessFlags;
    private int pkeyIndex;
    private int port = 1;
    private int qkey;
    private AddressHandleAttributes av;
    private PathMtu pathMtu = PathMtu.MTU_1024;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int rqPsn;
    private int sqPsn;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int destQpn;

    public QpAttributes state(QpState v) {
        if (v == null) throw new IllegalArgumentException("qp_state: must not be null");
        state = v; return this;
    }
    public QpAttributes curState(QpState v) {
        if (v == null) throw new IllegalArgumentException("cur_qp_state: must not be null");
        curState = v; return this;
    }
    public QpAttributes accessFlags(int v) {
        if ((v & ~(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC | AccessFlags.LOCAL_WRITE)) != 0) {
            throw new IllegalArgumentException("qp_access_flags: unknown bits 0x" + Integer.toHexString(v));
        }
        accessFlags = v; return this;
    }
    public QpAttributes pkeyIndex(int v) {
        if (v < 0 || v > 0xFFFF) throw new IllegalArgumentException("pkey_index: must be 0..65535, was " + v);
        pkeyIndex = v; return this;
    }
    public QpAttributes port(int v) {
        if (v < 1 || v > 255) throw new IllegalArgumentException("port_num: must be 1..255, was " + v);
        port = v; return this;
    }
    public QpAttributes qkey(int v) { qkey = v; return this; }
    public QpAttributes av(AddressHandleAttributes v) { av = v == null ? null : v.copy(); return this; }
    public QpAttributes pathMtu(PathMtu v) {
        if (v == null) throw new IllegalArgumentException("path_mtu: must not be null");
        pathMtu = v; return this;
    }
    /** Local ACK timeout code: 4.096 µs × 2^timeout, 0 = infinite. */
    public QpAttributes timeout(int v) {
        if (v < 0 || v > 31) throw new IllegalArgumentException("timeout: must be 0..31 (4.096 us * 2^timeout, 0 = infinite), was " + v);
        timeout = v; return this;
    }
    public QpAttributes retryCnt(int v) {
        if (v < 0 || v > 7) throw new IllegalArgumentException("retry_cnt: must be 0..7, was " + v);
        retryCnt = v; return this;
    }
    /** RNR retries: 0..7, 7 = infinite. */
    public QpAttributes rnrRetry(int v) {
        if (v < 0 || v > 7) throw new IllegalArgumentException("rnr_retry: must be 0..7 (7 = infinite), was " + v);
        rnrRetry = v; return this;
    }
    public QpAttributes rqPsn(int v) {
        if ((v & ~0xFFFFFF) != 0) throw new IllegalArgumentException("rq_psn: must fit 24 bits, was " + v);
        rqPsn = v; return this;
    }
    public QpAttributes sqPsn(int v) {
        if ((v & ~0xFFFFFF) != 0) throw new IllegalArgumentException("sq_psn: must fit 24 bits, was " + v);
        sqPsn = v; return this;
    }
    /** Outstanding READ/atomic requests this QP may issue (initiator depth). */
    public QpAttributes maxRdAtomic(int v) {
        if (v < 0 || v > 255) throw new IllegalArgumentException("max_rd_atomic: must be 0..255, was " + v);
        maxRdAtomic = v; return this;
    }
    /** READ/atomic requests this QP accepts concurrently as responder (responder resources). */
    public QpAttributes maxDestRdAtomic(int v) {
        if (v < 0 || v > 255) throw new IllegalArgumentException("max_dest_rd_atomic: must be 0..255, was " + v);
        maxDestRdAtomic = v; return this;
    }
    /** RNR NAK timer code 0..31 (see the RNR timer table; 0 = 655.36 ms). */
    public QpAttributes minRnrTimer(int v) {
        if (v < 0 || v > 31) throw new IllegalArgumentException("min_rnr_timer: must be 0..31, was " + v);
        minRnrTimer = v; return this;
    }
    public QpAttributes destQpn(int v) {
        if ((v & ~0xFFFFFF) != 0) throw new IllegalArgumentException("dest_qp_num: must fit 24 bits, was " + v);
        destQpn = v; return this;
    }

    public QpState state() { return state; }
    public QpState curState() { return curState; }
    public int accessFlags() { return accessFlags; }
    public int pkeyIndex() { return pkeyIndex; }
    public int port() { return port; }
    public int qkey() { return qkey; }
    public AddressHandleAttributes av() { return av; }
    public PathMtu pathMtu() { return pathMtu; }
    public int timeout() { return timeout; }
    public int retryCnt() { return retryCnt; }
    public int rnrRetry() { return rnrRetry; }
    public int rqPsn() { return rqPsn; }
    public int sqPsn() { return sqPsn; }
    public int maxRdAtomic() { return maxRdAtomic; }
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    public int minRnrTimer() { return minRnrTimer; }
    public int destQpn() { return destQpn; }

    /** Copies the fields named in {@code mask} from {@code src}. */
    public QpAttributes apply(QpAttributes src, int mask) {
        if ((mask & QpAttrMask.STATE) != 0) state = src.state;
        if ((mask & QpAttrMask.CUR_STATE) != 0) curState = src.curState;
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) accessFlags = src.accessFlags;
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) pkeyIndex = src.pkeyIndex;
        if ((mask & QpAttrMask.PORT) != 0) port = src.port;
        if ((mask & QpAttrMask.QKEY) != 0) qkey = src.qkey;
        if ((mask & QpAttrMask.AV) != 0) av = src.av == null ? null : src.av.copy();
        if ((mask & QpAttrMask.PATH_MTU) != 0) pathMtu = src.pathMtu;
        if ((mask & QpAttrMask.TIMEOUT) != 0) timeout = src.timeout;
        if ((mask & QpAttrMask.RETRY_CNT) != 0) retryCnt = src.retryCnt;
        if ((mask & QpAttrMask.RNR_RETRY) != 0) rnrRetry = src.rnrRetry;
        if ((mask & QpAttrMask.RQ_PSN) != 0) rqPsn = src.rqPsn;
        if ((mask & QpAttrMask.SQ_PSN) != 0) sqPsn = src.sqPsn;
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) maxRdAtomic = src.maxRdAtomic;
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) maxDestRdAtomic = src.maxDestRdAtomic;
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) minRnrTimer = src.minRnrTimer;
        if ((mask & QpAttrMask.DEST_QPN) != 0) destQpn = src.destQpn;
        return this;
    }

    public QpAttributes copy() {
        return new QpAttributes().apply(this, -1);
    }
}
