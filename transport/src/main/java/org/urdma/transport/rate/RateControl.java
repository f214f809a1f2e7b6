package org.urdma.transport.rate;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * When one queue pair may send its next packet. The requester asks {@link #nextSendTime} before each packet and tells
 * {@link #onSent} after it; the completer passes ACKs (with an RTT sample when it has one) and CNPs. Engine thread
 * only; takes {@code now} and never reads a clock.
 */
public interface RateControl {
    /** Makes one policy per QP; chosen by name when a connection is set up. */
    interface Factory {
        RateControl create();

        String name();

        /** A factory called {@code name} whose policies {@code maker} makes. */
        static Factory of(String name, Supplier<RateControl> maker) {
            return new Factory() {
                @Override
                public RateControl create() {
                    return maker.get();
                }

                @Override
                public String name() {
                    return name;
                }
            };
        }
    }

    /** Earliest time the next packet may leave; at or before {@code now} means at once. */
    long nextSendTime(long now);

    /** A packet carrying {@code payloadBytes} of payload left at {@code now}. */
    void onSent(int payloadBytes, long now);

    /** An acknowledgement arrived; {@code rttNanos} is -1 when the packet carried no timestamp. */
    default void onAck(long rttNanos, long now) {
    }

    /**
     * An acknowledgement covering {@code ackedBytes} newly delivered payload bytes (cumulative or selective; a resent
     * packet counts when it is acknowledged), with an RTT sample ({@code rttNanos}, -1 when none). This is how
     * delivery-rate policies (RRCC) are fed: the completer calls it once per ACK. The default forwards to
     * {@link #onAck(long, long)}, so policies that only want RTTs need not implement it.
     */
    default void onAck(long ackedBytes, long rttNanos, long now) {
        onAck(rttNanos, now);
    }

    /**
     * The receiver's loss-rate report (URDMA: the fraction of packets it found missing in its last measurement
     * interval, 0..1). Policies that do not react to loss ignore it.
     */
    default void onLossRate(double fraction, long now) {
    }

    /**
     * WAN mode timestamps (TS/AETH-EXT): one-way delays of the last round, requester to responder and back, in ns. Each
     * carries the two hosts' clock offset (it cancels in their sum, the RTT {@link #onAck} gets), so use their changes.
     */
    default void onOneWayDelay(long forwardNanos, long reverseNanos, long now) {
    }

    /** The link refused this QP a packet at {@code now} (paused, no credit, ring full): the QP waits, not the engine. */
    default void onLinkHeld(long now) {
    }

    /**
     * The engine did not run between this QP's pacing deadline {@code dueAt} and {@code now} (its thread was
     * descheduled or woke late): the lateness is the engine's, not the path's nor an idle QP's, and a policy may let the
     * QP make it up. Policies that pace like a NIC ignore it.
     */
    default void onEngineLate(long dueAt, long now) {
    }

    /** A congestion signal for this QP. */
    default void onCongestion(CongestionSignal signal, long now) {
    }

    /**
     * The policy reacts to RTTs (TIMELY, DCTCP's round-trip windows): in DC mode, where ACKs carry no timestamp, the
     * requester then times one packet per round trip and asks for its ACK. Others leave the ACK stream as it is.
     */
    default boolean wantsRtt() {
        return false;
    }

    /**
     * The policy reads in-band telemetry (HPCC): the QP's RC requests then carry an INT stack for the switches to stamp
     * and the responder echoes it in its ACKs ({@link org.urdma.transport.wire.IntStack}).
     */
    default boolean wantsTelemetry() {
        return false;
    }

    /**
     * An ACK echoed the INT stack at {@code stack[offset..]}: the ACK's PSN and the next PSN the QP will send (HPCC's
     * {@code ack.seq} and {@code snd_nxt}), so a policy can tell an ACK for data sent after its last update.
     */
    default void onTelemetry(org.agrona.DirectBuffer stack, int offset, int ackPsn, int nextPsn, long now) {
    }

    /**
     * Packets between the ACK requests this policy needs (HPCC's NIC acknowledges every packet: 1), 0 for no need of
     * its own; the requester asks at the smallest interval any of its parts needs.
     */
    default int ackEvery() {
        return 0;
    }

    /**
     * Payload bytes this QP may have sent and not yet had acknowledged (HPCC's {@code GetWin}); the requester rounds
     * it up to whole packets, at least one. {@link Long#MAX_VALUE}, the default, leaves only the QP's PSN window.
     */
    default long windowBytes() {
        return Long.MAX_VALUE;
    }

    String name();

    static Factory none() {
        return NoRateControl.FACTORY;
    }

    /** PAXI's per-QP limit: at most {@code lengthThr} payload bytes per {@code ccWindowNanos}. */
    static Factory windowLimit(long lengthThr, long ccWindowNanos) {
        return WindowLimit.factory(lengthThr, ccWindowNanos);
    }

    /** DCQCN (Zhu et al. 2015) with ns3-rdma/HPCC's parameters; see {@link Dcqcn}. */
    static Factory dcqcn(Dcqcn.Config config) {
        return Dcqcn.factory(config);
    }

    /** URDMA's RRCC: BBR-like with loss-rate feedback and an optional reference rate; see {@link Rrcc}. */
    static Factory rrcc(Rrcc.Config config) {
        return Rrcc.factory(config);
    }

    /** DCTCP as HPCC's {@code rdma-hw.cc} runs it on a NIC: rate-based, alpha per window; see {@link Dctcp}. */
    static Factory dctcp(Dctcp.Config config) {
        return Dctcp.factory(config);
    }

    /** TIMELY (Mittal et al. 2015), RTT-gradient, as HPCC's {@code rdma-hw.cc}; see {@link Timely}. */
    static Factory timely(Timely.Config config) {
        return Timely.factory(config);
    }

    /** HPCC (Li et al. 2019) from in-band telemetry, as HPCC's {@code rdma-hw.cc}; see {@link Hpcc}. */
    static Factory hpcc(Hpcc.Config config) {
        return Hpcc.factory(config);
    }

    /**
     * A factory from its name: {@code none}, {@code window:BYTES/NANOS} (PAXI's length_thr per CC_WINDOW, e.g.
     * {@code window:4096/8192}), {@code dcqcn} or {@code dcqcn:key=value,...} (see {@link Dcqcn.Config#parse}), {@code rrcc} or
     * {@code rrcc:ref=RATE,...} (see {@link Rrcc.Config#parse}), {@code dctcp[:k=v,...]} (see {@link Dctcp.Config#parse}),
     * {@code timely[:k=v,...]} (see {@link Timely.Config#parse}), {@code hpcc[:k=v,...]} (see {@link Hpcc.Config#parse}). {@code dcqcn}, {@code dctcp} and {@code timely} take
     * {@code +w} for HPCC's windowed variant ({@code dcqcn+w:line=25g,rtt=9}; see {@link Windowed}).
     * Throws IllegalArgumentException naming what is wrong.
     */
    static Factory named(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        if (s.equals("none")) return none();
        int colon = s.indexOf(':');
        String head = colon < 0 ? s : s.substring(0, colon);
        String options = colon < 0 ? "" : s.substring(colon + 1);
        if (head.endsWith("+w")) return Windowed.named(head.substring(0, head.length() - 2), options);
        if (head.equals("dcqcn")) return dcqcn(Dcqcn.Config.parse(options));
        if (head.equals("dctcp")) return dctcp(Dctcp.Config.parse(options));
        if (head.equals("timely")) return timely(Timely.Config.parse(options));
        if (head.equals("hpcc")) return hpcc(Hpcc.Config.parse(options));
        if (s.equals("rrcc") || s.startsWith("rrcc:")) {
            return rrcc(Rrcc.Config.parse(s.length() > 4 ? s.substring(5) : ""));
        }
        if (s.startsWith("window:")) {
            String[] p = s.substring(7).split("/");
            if (p.length != 2) throw new IllegalArgumentException("cc: window needs BYTES/NANOS, was '" + spec + "'");
            try {
                return windowLimit(Long.parseLong(p[0]), Long.parseLong(p[1]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("cc: window needs whole numbers BYTES/NANOS, was '" + spec + "'");
            }
        }
        throw new IllegalArgumentException("cc: unknown '" + spec
                + "', expected none, window:BYTES/NANOS, dcqcn[+w][:k=v,...], dctcp[+w][:k=v,...], timely[+w][:k=v,...], hpcc[:k=v,...], rrcc[:k=v,...]");
    }
}
