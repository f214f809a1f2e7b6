package org.urdma.transport.engine;

import org.urdma.transport.reliability.Reliability;
import org.urdma.verbs.Gid;

/**
 * A soft device's identity and limits. {@code window} bounds unacknowledged packets per QP;
 * {@code txBurst} bounds packets one QP sends per engine pass (fairness between QPs).
 */
public record DeviceConfig(String name, byte[] mac, int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr,
                           int maxRdAtomic, int maxInline, int window, int txBurst, Reliability reliability) {
    public DeviceConfig {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("name: must not be empty");
        if (mac == null || mac.length != 6) throw new IllegalArgumentException("mac: must be 6 bytes");
        if (window < 1 || window > (1 << 22)) throw new IllegalArgumentException("window: must be 1..2^22 packets, was " + window);
        if (txBurst < 1) throw new IllegalArgumentException("txBurst: must be >= 1");
        if (reliability == null) throw new IllegalArgumentException("reliability: must not be null");
        mac = mac.clone();
    }

    public static DeviceConfig named(String name, int macLastByte) {
        return new DeviceConfig(name, new byte[] {0x02, 0x00, 0x00, 0x00, 0x00, (byte) macLastByte},
                1024, 16384, 16, 65536, 65536, 16, 256, 512, 64, Reliability.goBackN());
    }

    public DeviceConfig withReliability(Reliability r) {
        return new DeviceConfig(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, window, txBurst, r);
    }

    public DeviceConfig withWindow(int w) {
        return new DeviceConfig(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, w, txBurst, reliability);
    }

    public Gid gid() {
        return Gid.fromMac(mac);
    }
}
