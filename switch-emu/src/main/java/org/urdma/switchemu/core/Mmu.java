package org.urdma.switchemu.core;

/**
 * Shared-buffer accounting after HPCC's switch-mmu and Choudhury–Hahne: every queue has a reserve;
 * above it, bytes come from a shared pool whose per-queue limit is the Dynamic Threshold
 * α × (buffer − total headroom − total reserve − shared in use). Lossless traffic is accounted per
 * ingress (port, priority), as PFC needs: above the threshold it goes into its headroom (and sends
 * XOFF) and is dropped only when the headroom is exhausted; XON once the headroom is empty and shared
 * use + resume offset is at or below the threshold. Lossy traffic is admitted per egress (port,
 * priority), as shared-memory switches apply DT, so S senders into one port share one threshold.
 */
final class Mmu {
    private final long bufferBytes;
    private final long reserve;
    private final double alpha;
    private final long resumeOffset;
    private final long totalFixed;
    private final long[] headroom;
    final long[] ingressBytes;
    /** Lossy bytes per egress (port, priority). */
    final long[] egressBytes;
    final long[] headroomBytes;
    final boolean[] paused;
    private long sharedUsed;
    private long totalUsed;

    Mmu(SwitchConfig config) {
        int ports = config.ports.size();
        this.bufferBytes = config.bufferBytes;
        this.reserve = config.reserveBytes;
        this.alpha = config.dtAlpha;
        this.resumeOffset = config.resumeOffsetBytes;
        this.headroom = new long[ports];
        long totalHeadroom = 0;
        for (int i = 0; i < ports; i++) {
            PortConfig p = config.ports.get(i);
            headroom[i] = p.headroomBytes;
            totalHeadroom += p.headroomBytes * Integer.bitCount(p.pfcMask);
        }
        this.totalFixed = totalHeadroom + reserve * 8L * ports;
        this.ingressBytes = new long[ports * 8];
        this.egressBytes = new long[ports * 8];
        this.headroomBytes = new long[ports * 8];
        this.paused = new boolean[ports * 8];
    }

    long threshold() {
        long free = bufferBytes - totalFixed - sharedUsed;
        return free <= 0 ? 0 : (long) (alpha * free);
    }

    long sharedUsed(int idx) {
        long used = ingressBytes[idx];
        return used > reserve ? used - reserve : 0;
    }

    long sharedUsed() {
        return sharedUsed;
    }

    long totalUsed() {
        return totalUsed;
    }

    private long egressShared(int outIdx) {
        long used = egressBytes[outIdx];
        return used > reserve ? used - reserve : 0;
    }

    /**
     * Null if a frame of {@code length} from ingress queue {@code idx} (= port × 8 + priority) may enter
     * egress queue {@code outIdx}: lossless ones by their ingress queue, lossy ones by their egress queue.
     */
    DropReason admit(int idx, int outIdx, int port, int length, boolean lossless) {
        if (totalUsed + length > bufferBytes) {
            return DropReason.BUFFER_FULL;
        }
        if (lossless) {
            if (length + headroomBytes[idx] > headroom[port] && length + sharedUsed(idx) > threshold()) {
                return DropReason.HEADROOM_EXHAUSTED;
            }
        } else if (egressBytes[outIdx] + length > reserve && egressShared(outIdx) + length > threshold()) {
            return DropReason.SHARED_THRESHOLD;
        }
        return null;
    }

    void add(int idx, int outIdx, int length, boolean lossless) {
        totalUsed += length;
        if (!lossless) {
            long newBytes = egressBytes[outIdx] + length;
            if (newBytes > reserve) {
                sharedUsed += Math.min(length, newBytes - reserve);
            }
            egressBytes[outIdx] = newBytes;
            return;
        }
        long newBytes = ingressBytes[idx] + length;
        if (newBytes <= reserve) {
            ingressBytes[idx] = newBytes;
        } else if (newBytes - reserve > threshold()) {
            headroomBytes[idx] += length;
        } else {
            ingressBytes[idx] = newBytes;
            sharedUsed += Math.min(length, newBytes - reserve);
        }
    }

    void remove(int idx, int outIdx, int length, boolean lossless) {
        if (!lossless) {
            sharedUsed -= Math.min(length, egressShared(outIdx));
            egressBytes[outIdx] -= length;
            totalUsed -= length;
            return;
        }
        long fromHeadroom = Math.min(headroomBytes[idx], length);
        long inShared = ingressBytes[idx] > reserve ? ingressBytes[idx] - reserve : 0;
        long fromShared = Math.min(length - fromHeadroom, inShared);
        headroomBytes[idx] -= fromHeadroom;
        ingressBytes[idx] -= length - fromHeadroom;
        sharedUsed -= fromShared;
        totalUsed -= length;
    }

    boolean shouldPause(int idx) {
        return !paused[idx] && (headroomBytes[idx] > 0 || sharedUsed(idx) >= threshold());
    }

    boolean shouldResume(int idx) {
        if (!paused[idx]) {
            return false;
        }
        long shared = sharedUsed(idx);
        return headroomBytes[idx] == 0 && (shared == 0 || shared + resumeOffset <= threshold());
    }
}
