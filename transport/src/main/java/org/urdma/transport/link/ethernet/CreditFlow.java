package org.urdma.transport.link.ethernet;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.CbfcEth;

/**
 * PAXI CBFC at one link end, both directions (seed 004 §3.2, WIRE.md §9). The unit is one frame: PAXI's RX buffer is
 * sized and watermarked in frames (seed 004 §3.3: "32 frames + 1 RTT"), and our RX buffer is a ring of fixed-size
 * frame slots, where a byte credit would let many short frames overrun it.
 * <ul>
 * <li>Sender: {@code credits[vc]} frames may leave on VC {@code vc} (its 802.1Q PCP); each frame sent spends one, and
 * a VC at zero stops until credits return.</li>
 * <li>Receiver: each frame of ours that arrives on a VC takes a slot; once the engine has consumed it, the slot is
 * free. The 8 x 16-bit counts of a credit frame (opcode 0xC0) are cumulative frames freed per VC modulo 2^16, like
 * InfiniBand's FCCL, so a lost credit frame loses no credit: the next one carries the total.</li>
 * </ul>
 * A credit frame goes out once a quarter of the initial credit of a VC is free, or {@link #RETURN_INTERVAL_NS} after
 * the first unreturned slot was freed, and once more {@link #REPEAT_NS} later with the same totals, so that one lost
 * credit frame cannot leave a sender that spent everything waiting forever. Engine thread only.
 */
final class CreditFlow {
    static final int VCS = CbfcEth.VCS;
    /** Longest a freed slot waits before its credit returns (a trickle must not stall a sender). */
    static final long RETURN_INTERVAL_NS = 20_000;
    /** When the totals of the last credit frame are sent again (once). */
    static final long REPEAT_NS = 100_000;

    private final LinkCounters counters;
    private final int initial;
    private final int returnBatch;
    private final int[] credits = new int[VCS];
    private final int[] heard = new int[VCS];
    private final int[] freed = new int[VCS];
    private final int[] advertised = new int[VCS];
    /** When the oldest unreturned slot was freed, or Long.MAX_VALUE when all are returned. */
    private long owedSince = Long.MAX_VALUE;
    private long repeatAt = Long.MAX_VALUE;
    private EngineCounters engine;

    CreditFlow(LinkCounters counters, int initialCredits) {
        if (initialCredits < 1 || initialCredits > 0x7FFF) {
            throw new IllegalArgumentException("cbfcCredits: must be 1..32767 frames, was " + initialCredits);
        }
        this.counters = counters;
        this.initial = initialCredits;
        this.returnBatch = Math.max(1, initialCredits / 4);
        java.util.Arrays.fill(credits, initialCredits);
    }

    int initialCredits() {
        return initial;
    }

    void engineCounters(EngineCounters c) {
        engine = c;
    }

    /** Credits VC {@code vc} may still spend. */
    int credits(int vc) {
        return credits[vc];
    }

    /** Sender: whether a frame may leave on {@code vc} now. */
    boolean mayStart(int vc) {
        return credits[vc] > 0;
    }

    /** Sender: a frame left on {@code vc}. */
    void spent(int vc) {
        credits[vc]--;
        counters.cbfcConsumed[vc]++;
        if (engine != null) engine.add(Counter.CBFC_CREDITS_CONSUMED, vc, 1);
    }

    /** Sender: a credit frame from the peer; adds what each VC's total grew by since the last one. */
    void onCredits(RxPacket p) {
        counters.cbfcFramesRcvd++;
        for (int vc = 0; vc < VCS; vc++) {
            int total = p.cbfcCredit(vc);
            int grant = (total - heard[vc]) & 0xFFFF;
            if (grant == 0) continue;
            if (grant > initial - credits[vc]) { // more than the peer can owe us: a stray or hostile frame
                counters.cbfcBadGrants++;
                continue;
            }
            heard[vc] = total;
            credits[vc] += grant;
            counters.cbfcReceived[vc] += grant;
        }
    }

    /** Receiver: a frame of ours on {@code vc} was taken out of the RX buffer at {@code now}. */
    void freed(int vc, long now) {
        freed[vc] = (freed[vc] + 1) & 0xFFFF;
        counters.cbfcFramesTaken[vc]++;
        if (owedSince == Long.MAX_VALUE) owedSince = now;
    }

    /** Receiver: whether a credit frame should go out now. */
    boolean due(long now) {
        if (now >= repeatAt) return true;
        if (owedSince == Long.MAX_VALUE) return false;
        if (now - owedSince >= RETURN_INTERVAL_NS) return true;
        for (int vc = 0; vc < VCS; vc++) {
            if (((freed[vc] - advertised[vc]) & 0xFFFF) >= returnBatch) return true;
        }
        return false;
    }

    /** When the owed credits are returned at the latest (for a simulated driver), or Long.MAX_VALUE. */
    long returnDeadline() {
        return Math.min(repeatAt, owedSince == Long.MAX_VALUE ? Long.MAX_VALUE : owedSince + RETURN_INTERVAL_NS);
    }

    /** Receiver: writes the cumulative counts into a credit frame being built. */
    void write(TxPacket t) {
        for (int vc = 0; vc < VCS; vc++) t.cbfcCredit(vc, freed[vc]);
    }

    /** Receiver: the credit frame written by {@link #write} left at {@code now}; its credits count as granted. */
    void returned(long now) {
        counters.cbfcFramesSent++;
        boolean granted = false;
        for (int vc = 0; vc < VCS; vc++) {
            int grant = (freed[vc] - advertised[vc]) & 0xFFFF;
            if (grant == 0) continue;
            granted = true;
            advertised[vc] = freed[vc];
            counters.cbfcGranted[vc] += grant;
            if (engine != null) engine.add(Counter.CBFC_CREDITS_GRANTED, vc, grant);
        }
        owedSince = Long.MAX_VALUE;
        repeatAt = granted ? now + REPEAT_NS : Long.MAX_VALUE; // a repeat is not repeated
    }
}
