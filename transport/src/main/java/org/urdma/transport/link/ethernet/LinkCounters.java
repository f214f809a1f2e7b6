package org.urdma.transport.link.ethernet;

/**
 * Counters of one Ethernet link end, written by its engine thread only (read them from elsewhere as
 * approximate live values, exactly once the engine is stopped).
 */
public final class LinkCounters {
    long txFrames, txBytes, txBackPressure, txUnencodable, txTooLong, txFlushes, txFlushRetries, txErrors;
    long rxFrames, rxBytes, rxMalformed, rxTruncated, rxIgnored, rxNotForUs, rxArp, rxRingLosses;
    final long[] rxByPcp = new long[8];
    int lastRxPcp = -1;
    long captureErrors;
    long rxMacControl, txPaused;
    final long[] pauseFrames = new long[8];
    final long[] pauseTimeNs = new long[8];
    final long[] cbfcConsumed = new long[8], cbfcReceived = new long[8], cbfcGranted = new long[8], cbfcFramesTaken = new long[8];
    long cbfcFramesSent, cbfcFramesRcvd, cbfcBadGrants;

    public long txFrames() { return txFrames; }
    public long txBytes() { return txBytes; }
    /** Sends refused because the TX ring (or TAP queue) was full. */
    public long txBackPressure() { return txBackPressure; }
    /** Packets the framing cannot carry (dropped and counted). */
    public long txUnencodable() { return txUnencodable; }
    /** Packets whose frame would exceed the interface MTU (dropped and counted). */
    public long txTooLong() { return txTooLong; }
    /** Syscalls that handed a batch of TX ring slots to the kernel. */
    public long txFlushes() { return txFlushes; }
    public long txFlushRetries() { return txFlushRetries; }
    public long txErrors() { return txErrors; }
    /** RDMA frames decoded and delivered to the engine. */
    public long rxFrames() { return rxFrames; }
    public long rxBytes() { return rxBytes; }
    /** RDMA frames of our format addressed to us that failed to decode (bad ICRC, truncated, …): dropped. */
    public long rxMalformed() { return rxMalformed; }
    public long rxTruncated() { return rxTruncated; }
    /** Other traffic on the interface (kernel TCP, IPv6 ND, other formats): not ours, skipped. */
    public long rxIgnored() { return rxIgnored; }
    /** RDMA frames for another MAC (e.g. flooded by a bridge): skipped. */
    public long rxNotForUs() { return rxNotForUs; }
    public long rxArp() { return rxArp; }
    /** Times the kernel flagged that it dropped frames because the RX ring was full. */
    public long rxRingLosses() { return rxRingLosses; }
    /** Received frames that carried an 802.1Q tag with priority {@code pcp}. */
    public long rxByPcp(int pcp) { return rxByPcp[pcp]; }
    /** PCP of the last tagged RDMA frame received, or -1 if none was tagged. */
    public int lastRxPcp() { return lastRxPcp; }
    public long captureErrors() { return captureErrors; }
    /** MAC Control frames (PAUSE, PFC, others) received, honoured or not. */
    public long rxMacControl() { return rxMacControl; }
    /** Claims refused because the packet's priority was paused (PFC/PAUSE) or its VC had no credit (CBFC). */
    public long txPaused() { return txPaused; }
    /** PFC frames naming priority {@code p} plus PAUSE frames (which name all) received and honoured. */
    public long pauseFrames(int p) { return pauseFrames[p]; }
    /** Time priority {@code p} was paused, in ns, for the pauses that have ended (XON or time out). */
    public long pauseTimeNs(int p) { return pauseTimeNs[p]; }
    public long pauseFrames() { return sum(pauseFrames); }
    public long pauseTimeNs() { return sum(pauseTimeNs); }

    /** CBFC sender: credits spent on VC {@code vc} (frames sent on it). */
    public long cbfcConsumed(int vc) { return cbfcConsumed[vc]; }
    /** CBFC sender: credits the peer returned for VC {@code vc}. */
    public long cbfcReceived(int vc) { return cbfcReceived[vc]; }
    /** CBFC receiver: credits this end returned to its peer for VC {@code vc}. */
    public long cbfcGranted(int vc) { return cbfcGranted[vc]; }
    /** CBFC receiver: frames of ours that arrived on VC {@code vc}, each holding one of the peer's credits. */
    public long cbfcFramesTaken(int vc) { return cbfcFramesTaken[vc]; }
    public long cbfcFramesSent() { return cbfcFramesSent; }
    public long cbfcFramesRcvd() { return cbfcFramesRcvd; }
    /** Credit frames whose counts grew by more than the peer can owe (stray or hostile): ignored. */
    public long cbfcBadGrants() { return cbfcBadGrants; }

    static long sum(long[] a) {
        long s = 0;
        for (long v : a) s += v;
        return s;
    }

    @Override
    public String toString() {
        return "tx " + txFrames + " frames/" + txBytes + " B in " + txFlushes + " flushes (retries " + txFlushRetries + ", backpressure " + txBackPressure
                + ", too long " + txTooLong + ", unencodable " + txUnencodable + ", errors " + txErrors + "); rx " + rxFrames
                + " frames/" + rxBytes + " B (malformed " + rxMalformed + ", truncated " + rxTruncated + ", ignored " + rxIgnored
                + ", not for us " + rxNotForUs + ", arp " + rxArp + ", ring losses " + rxRingLosses + ")";
    }
}
