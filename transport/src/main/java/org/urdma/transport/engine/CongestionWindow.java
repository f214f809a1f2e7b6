package org.urdma.transport.engine;

/**
 * A rate control's in-flight window ({@code +w} policies) applied to an RC requester's PSN window, and the AckReq
 * cadence it then needs: at most half the narrowed window between ACK requests, so the ACKs that open a small window
 * come before it closes (HPCC's NIC ACKs every packet).
 */
final class CongestionWindow {
    /** Half the narrowed window in packets while the rate control narrows the PSN window, else 0. */
    private int ackInterval;

    /** The PSN window {@code window} narrowed to {@code bytes} in whole packets of {@code mtu} (MAX_VALUE: none). */
    int narrow(int window, long bytes, int mtu) {
        int w = bytes == Long.MAX_VALUE ? window : (int) Math.max(1, Math.min(window, (bytes + mtu - 1) / mtu));
        ackInterval = w < window ? Math.max(1, w / 2) : 0;
        return w;
    }

    /** Packets between ACK requests: the loss recovery's {@code recoveryInterval} (0: none), within the window's. */
    int ackReqInterval(int recoveryInterval) {
        if (ackInterval == 0) return recoveryInterval;
        return recoveryInterval == 0 ? ackInterval : Math.min(recoveryInterval, ackInterval);
    }
}
