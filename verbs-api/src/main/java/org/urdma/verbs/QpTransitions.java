package org.urdma.verbs;

import static org.urdma.verbs.QpAttrMask.*;

/**
 * The modify-QP state table of {@code ib_modify_qp_is_ok} (Linux {@code drivers/infiniband/core/verbs.c}):
 * which transitions exist per service type and which attributes each requires or allows.
 */
public final class QpTransitions {
    private static final int N = QpState.values().length;
    private static final int NT = QpType.values().length;
    /** [cur][next][type] → required mask, or -1 when the transition does not exist. */
    private static final int[][][] REQ = new int[N][N][NT];
    private static final int[][][] OPT = new int[N][N][NT];

    static {
        for (int[][] a : REQ) for (int[] b : a) java.util.Arrays.fill(b, -1);
        for (QpState s : QpState.values()) {
            rule(s, QpState.RESET, 0, 0, 0, 0, 0, 0);
            rule(s, QpState.ERR, 0, 0, 0, 0, 0, 0);
        }
        // RESET → INIT
        rule(QpState.RESET, QpState.INIT,
                PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | QKEY,
                0, 0, 0);
        // INIT → INIT
        rule(QpState.INIT, QpState.INIT, 0, 0, 0,
                PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | QKEY);
        // INIT → RTR
        rule(QpState.INIT, QpState.RTR,
                AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                AV | PATH_MTU | DEST_QPN | RQ_PSN,
                0,
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX,
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX,
                PKEY_INDEX | QKEY);
        // RTR → RTS
        rule(QpState.RTR, QpState.RTS,
                SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC,
                SQ_PSN,
                SQ_PSN,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
                CUR_STATE | QKEY);
        // RTS → RTS
        rule(QpState.RTS, QpState.RTS, 0, 0, 0,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE,
                CUR_STATE | QKEY);
        // RTS → SQD
        rule(QpState.RTS, QpState.SQD, 0, 0, 0, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY);
        // SQD → RTS
        rule(QpState.SQD, QpState.RTS, 0, 0, 0,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
                CUR_STATE | QKEY);
        // SQD → SQD
        rule(QpState.SQD, QpState.SQD, 0, 0, 0,
                PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC | ALT_PATH
                        | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE,
                AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE,
                PKEY_INDEX | QKEY);
        // SQE → RTS (UC and UD only: an RC send queue error moves the QP to ERR)
        REQ[QpState.SQE.ordinal()][QpState.RTS.ordinal()][QpType.UC.ordinal()] = 0;
        OPT[QpState.SQE.ordinal()][QpState.RTS.ordinal()][QpType.UC.ordinal()] = CUR_STATE | ACCESS_FLAGS;
        REQ[QpState.SQE.ordinal()][QpState.RTS.ordinal()][QpType.UD.ordinal()] = 0;
        OPT[QpState.SQE.ordinal()][QpState.RTS.ordinal()][QpType.UD.ordinal()] = CUR_STATE | QKEY;
    }

    private static void rule(QpState cur, QpState next, int reqRc, int reqUc, int reqUd, int optRc, int optUc, int optUd) {
        int[] r = REQ[cur.ordinal()][next.ordinal()];
        int[] o = OPT[cur.ordinal()][next.ordinal()];
        r[QpType.RC.ordinal()] = reqRc; r[QpType.UC.ordinal()] = reqUc; r[QpType.UD.ordinal()] = reqUd;
        o[QpType.RC.ordinal()] = optRc; o[QpType.UC.ordinal()] = optUc; o[QpType.UD.ordinal()] = optUd;
    }

    private QpTransitions() {}

    /** Attributes a transition requires; -1 when it does not exist. */
    public static int required(QpType type, QpState cur, QpState next) {
        return REQ[cur.ordinal()][next.ordinal()][type.ordinal()];
    }

    /** Attributes a transition allows beyond the required ones (STATE is always allowed). */
    public static int optional(QpType type, QpState cur, QpState next) {
        return OPT[cur.ordinal()][next.ordinal()][type.ordinal()];
    }

    /**
     * Checks a modify: returns the target state; throws IllegalArgumentException naming the attribute and rule.
     * Without STATE in the mask the QP stays in its state (a same-state modify, which must exist).
     */
    public static QpState validate(QpType type, QpState cur, QpAttributes attr, int mask) {
        if ((mask & CUR_STATE) != 0 && attr.curState() != cur) {
            throw new IllegalArgumentException("cur_qp_state: given " + attr.curState() + " but the QP is in " + cur);
        }
        QpState next = (mask & STATE) != 0 ? attr.state() : cur;
        int req = required(type, cur, next);
        if (req < 0) {
            throw new IllegalArgumentException("qp_state: " + cur + " -> " + next + " is not a valid transition for a "
                    + type + " QP");
        }
        int missing = req & ~mask;
        if (missing != 0) {
            throw new IllegalArgumentException("attr_mask: " + QpAttrMask.names(missing) + " required for " + type + " "
                    + cur + " -> " + next);
        }
        int extra = mask & ~(req | optional(type, cur, next) | STATE);
        if (extra != 0) {
            throw new IllegalArgumentException("attr_mask: " + QpAttrMask.names(extra) + " not allowed for " + type + " "
                    + cur + " -> " + next);
        }
        if ((mask & AV) != 0 && attr.av() == null) {
            throw new IllegalArgumentException("ah_attr: AV is in attr_mask but no address vector is set");
        }
        return next;
    }
}
