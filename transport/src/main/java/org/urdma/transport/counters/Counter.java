package org.urdma.transport.counters;

/**
 * Every engine counter, named once (like Aeron's {@code SystemCounterDescriptor}). Names are Linux rxe's
 * {@code hw_counters} names where rxe has the counter, so a urdma run and an rxe run compare line by line;
 * the rest are ours. {@link Scope} says where a counter lives: a QP counter is kept per QP and in the
 * device total, a device counter only once, a priority counter per 802.1p priority (or CBFC VC) and in
 * the device total.
 */
public enum Counter {
    // rxe hw_counters (drivers/infiniband/sw/rxe/rxe_hw_counters.c)
    SENT_PKTS("sent_pkts", Scope.QP, "packets sent, first transmissions and retransmissions"),
    RCVD_PKTS("rcvd_pkts", Scope.QP, "packets received and accepted by a QP"),
    DUPLICATE_REQUEST("duplicate_request", Scope.QP, "responder: request with an already-seen PSN"),
    OUT_OF_SEQ_REQUEST("out_of_seq_request", Scope.QP, "responder: request with a PSN past the expected one"),
    RCVD_RNR_ERR("rcvd_rnr_err", Scope.QP, "requester: RNR NAKs received"),
    SEND_RNR_ERR("send_rnr_err", Scope.QP, "responder: RNR NAKs sent (no receive WQE)"),
    RCVD_SEQ_ERR("rcvd_seq_err", Scope.QP, "requester: PSN sequence error NAKs received"),
    ACK_DEFERRED("ack_deferred", Scope.QP, "completer: ACK handling deferred to a later pass"),
    RETRY_EXCEEDED_ERR("retry_exceeded_err", Scope.QP, "retry_cnt exhausted: QP to error"),
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err", Scope.QP, "rnr_retry exhausted: QP to error"),
    COMPLETER_RETRY_ERR("completer_retry_err", Scope.QP, "completer started a retry (timeout or NAK)"),
    SEND_ERR("send_err", Scope.QP, "frames the link refused to send"),
    LINK_DOWNED("link_downed", Scope.DEVICE, "link went down"),
    RDMA_SENDS("rdma_sends", Scope.QP, "SEND operations completed at the requester"),
    RDMA_RECVS("rdma_recvs", Scope.QP, "SEND operations received into a receive WQE"),
    // ours
    SENT_BYTES("sent_bytes", Scope.QP, "bytes of the packets in sent_pkts (transport headers and payload)"),
    RCVD_BYTES("rcvd_bytes", Scope.QP, "bytes of the packets in rcvd_pkts"),
    PLACED_BYTES("placed_bytes", Scope.QP, "payload bytes placed in memory once each (WRITE, SEND at the responder, READ responses at the requester; no duplicates, no parity)"),
    RETRANSMITTED_PKTS("retransmitted_pkts", Scope.QP, "packets sent again (any reason)"),
    ACK_TIMEOUTS("ack_timeouts", Scope.QP, "retransmission timer expiries"),
    SACKS_SENT("sacks_sent", Scope.QP, "WAN responder: ACKs sent with a SACK-ETH listing missing PSNs"),
    SACK_RANGES_RCVD("sack_ranges_rcvd", Scope.QP, "WAN requester: missing PSN ranges received in SACK-ETHs"),
    SACK_RESENT_PKTS("sack_resent_pkts", Scope.QP, "WAN requester: packets resent because a SACK listed them"),
    FEC_PARITY_SENT("fec_parity_sent", Scope.QP, "WAN requester: P-FEC parity packets sent (opcode 0xC1)"),
    FEC_PARITY_RCVD("fec_parity_rcvd", Scope.QP, "WAN responder: P-FEC parity packets received"),
    FEC_REPAIRED("fec_repaired", Scope.QP, "WAN responder: lost packets rebuilt from P-FEC parity and placed (no retransmission)"),
    STALE_RESPONSES("stale_responses", Scope.QP, "requester: ACKs, NAKs and READ responses ignored as older than the oldest unacknowledged PSN or already placed"),
    OUT_OF_ORDER_PLACED("out_of_order_placed", Scope.QP, "WAN: packets placed ahead of a missing PSN"),
    TX_BLOCKED("tx_blocked", Scope.QP, "packets the link had no room for (tried again in a later pass)"),
    NAKS_SENT("naks_sent", Scope.QP, "NAKs sent (not RNR)"),
    NAKS_RCVD("naks_rcvd", Scope.QP, "NAKs received (not RNR)"),
    RNR_NAKS_SENT("rnr_naks_sent", Scope.QP, "RNR NAKs sent"),
    ECN_CE_RCVD("ecn_ce_rcvd", Scope.QP, "packets received with ECN CE"),
    CNP_SENT("cnp_sent", Scope.QP, "CNPs sent"),
    CNP_HANDLED("cnp_handled", Scope.QP, "CNPs handed to the QP's rate control"),
    CNP_MERGED("cnp_merged", Scope.QP, "CNPs dropped by PAXI's CNP merge (QPID seen within TIMER_THR)"),
    PAUSE_FRAMES_RCVD("pause_frames_rcvd", Scope.PRIORITY, "PFC (per priority) and PAUSE (all) frames received"),
    PAUSE_TIME_NS("pause_time_ns", Scope.PRIORITY, "time a priority was paused"),
    CBFC_CREDITS_GRANTED("cbfc_credits_granted", Scope.PRIORITY, "CBFC credits returned to the sender, per VC"),
    CBFC_CREDITS_CONSUMED("cbfc_credits_consumed", Scope.PRIORITY, "CBFC credits spent sending, per VC"),
    // drops by reason (the journal's DROP event names the same counter)
    CM_MADS_RCVD("cm_mads_rcvd", Scope.DEVICE, "rdma_cm: MADs received on QP1"),
    CM_MADS_SENT("cm_mads_sent", Scope.DEVICE, "rdma_cm: MADs sent from QP1 (first sends and retries)"),
    CM_ESTABLISHED("cm_established", Scope.DEVICE, "rdma_cm: connections established (either side)"),
    CM_RETRIES("cm_retries", Scope.DEVICE, "rdma_cm: REQ/REP/DREQ/SIDR_REQ sent again after the response timeout"),
    CM_TIMEOUTS("cm_timeouts", Scope.DEVICE, "rdma_cm: connections given up after the last retry"),
    CM_DUPLICATES("cm_duplicates", Scope.DEVICE, "rdma_cm: duplicate REQ/REP answered again, not acted on twice"),
    CM_REJ_SENT("cm_rej_sent", Scope.DEVICE, "rdma_cm: REJs sent (unknown service, refused, timeout)"),
    CM_REJ_RCVD("cm_rej_rcvd", Scope.DEVICE, "rdma_cm: REJs received"),
    CM_MRA_SENT("cm_mra_sent", Scope.DEVICE, "rdma_cm: MRAs sent for a REQ the application answers late"),
    DROP_CM_MAD("drop_cm_mad", Scope.DEVICE, "QP1: MAD of another class, version or method than a CM Send"),
    DROP_UNKNOWN_QP("drop_unknown_qp", Scope.DEVICE, "destination QP does not exist"),
    DROP_BAD_PKEY("drop_bad_pkey", Scope.QP, "P_Key does not match the QP's"),
    DROP_QKEY("drop_qkey", Scope.QP, "UD: Q_Key does not match"),
    DROP_BAD_ICRC("drop_bad_icrc", Scope.DEVICE, "ICRC mismatch"),
    DROP_MALFORMED("drop_malformed", Scope.DEVICE, "truncated or inconsistent headers"),
    DROP_BAD_OPCODE("drop_bad_opcode", Scope.QP, "opcode not valid for the QP's transport or sequence"),
    DROP_WRONG_STATE("drop_wrong_state", Scope.QP, "QP state does not accept the packet"),
    DROP_FOREIGN_SOURCE("drop_foreign_source", Scope.QP, "RC/UC: packet not from the connected peer"),
    DROP_NOT_PLACEABLE("drop_not_placeable", Scope.QP, "WAN: packet beyond the placement window, or READ/atomic/SEND that cannot be placed ahead of order yet"),
    DROP_AHEAD_INVALID("drop_ahead_invalid", Scope.QP, "WAN responder: request ahead of the expected PSN with a bad opcode, size, "
            + "per-packet RETH or SEND offset (only the expected PSN is NAK'd; the requester resends a real one)"),
    DROP_AHEAD_ACCESS("drop_ahead_access", Scope.QP, "WAN responder: request ahead of the expected PSN failing its R_Key, rights, "
            + "bounds or receive check (only the expected PSN is NAK'd)"),
    DROP_FEC_OUT_OF_WINDOW("drop_fec_out_of_window", Scope.QP, "WAN responder: P-FEC parity for a group outside the placement window"),
    DROP_SACK_UNSENT("drop_sack_unsent", Scope.QP, "WAN requester: SACK-ETHs whose missing ranges named PSNs never sent "
            + "(a forged request far ahead, or a forged SACK); those ranges are dropped, the rest is used"),
    // the telemetry itself
    JOURNAL_EVENTS_LOST("journal_events_lost", Scope.DEVICE, "journal events dropped because the ring was full"),
    QP_COUNTERS_UNAVAILABLE("qp_counters_unavailable", Scope.DEVICE, "QPs counted in device totals only (file full)");

    /** Where a counter is kept. */
    public enum Scope { DEVICE, QP, PRIORITY }

    /** Priorities (802.1p) or CBFC virtual channels of a {@link Scope#PRIORITY} counter. */
    public static final int PRIORITIES = 8;

    private static final Counter[] VALUES = values();
    private final String label;
    private final Scope scope;
    private final String description;

    Counter(String label, Scope scope, String description) {
        this.label = label;
        this.scope = scope;
        this.description = description;
    }

    /** The name in labels, in {@code urdma stat} and in rxe's sysfs {@code hw_counters}. */
    public String label() {
        return label;
    }

    public Scope scope() {
        return scope;
    }

    public String description() {
        return description;
    }

    public boolean isDrop() {
        return label.startsWith("drop_");
    }

    /** The counter of an ordinal ({@link #ordinal()}), or null if out of range. */
    public static Counter of(int ordinal) {
        return ordinal >= 0 && ordinal < VALUES.length ? VALUES[ordinal] : null;
    }

    /** The counter of a label, or null. */
    public static Counter byLabel(String label) {
        for (Counter c : VALUES) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        return null;
    }

    static int count(Scope s) {
        int n = 0;
        for (Counter c : VALUES) {
            n += c.scope == s ? 1 : 0;
        }
        return n;
    }
}
