package org.urdma.transport.engine;

import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.Gid;

/**
 * A soft device's identity and limits. {@code window} bounds unacknowledged packets per QP;
 * {@code txBurst} bounds packets one QP sends per engine pass (fairness between QPs). {@code lossRecovery} and
 * {@code rateControl} make each new QP's policies (a connection may choose others before it leaves INIT); {@code cnp}
 * paces the CNPs this device sends and sets the CNP merge of those it receives.
 */
public record DeviceConfig(String name, byte[] mac, int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr,
                           int maxRdAtomic, int maxInline, int window, int txBurst, LossRecovery.Factory lossRecovery,
                           RateControl.Factory rateControl, CnpConfig cnp) {
    public DeviceConfig {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("name: must not be empty");
        if (mac == null || mac.length != 6) throw new IllegalArgumentException("mac: must be 6 bytes");
        if (window < 1 || window > (1 << 22)) throw new IllegalArgumentException("window: must be 1..2^22 packets, was " + window);
        if (txBurst < 1) throw new IllegalArgumentException("txBurst: must be >= 1");
        if (lossRecovery == null) throw new IllegalArgumentException("lossRecovery: must not be null");
        if (rateControl == null) throw new IllegalArgumentException("rateControl: must not be null");
        if (cnp == null) throw new IllegalArgumentException("cnp: must not be null");
        mac = mac.clone();
    }

    /** The default CNP settings (50 µs per QP, no merge). */
    public DeviceConfig(String name, byte[] mac, int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr,
                        int maxRdAtomic, int maxInline, int window, int txBurst, LossRecovery.Factory lossRecovery,
                        RateControl.Factory rateControl) {
        this(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, window, txBurst, lossRecovery,
                rateControl, CnpConfig.defaults());
    }

    /** No rate control. */
    public DeviceConfig(String name, byte[] mac, int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr,
                        int maxRdAtomic, int maxInline, int window, int txBurst, LossRecovery.Factory lossRecovery) {
        this(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, window, txBurst, lossRecovery,
                RateControl.none());
    }

    public static DeviceConfig named(String name, int macLastByte) {
        return new DeviceConfig(name, new byte[] {0x02, 0x00, 0x00, 0x00, 0x00, (byte) macLastByte},
                1024, 16384, 16, 65536, 65536, 16, 256, 512, 64, LossRecovery.goBackN());
    }

    public DeviceConfig withLossRecovery(LossRecovery.Factory r) {
        return new DeviceConfig(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, window, txBurst, r,
                rateControl, cnp);
    }

    public DeviceConfig withRateControl(RateControl.Factory r) {
        return new DeviceConfig(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, window, txBurst,
                lossRecovery, r, cnp);
    }

    public DeviceConfig withWindow(int w) {
        return new DeviceConfig(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, w, txBurst,
                lossRecovery, rateControl, cnp);
    }

    public DeviceConfig withCnp(CnpConfig c) {
        return new DeviceConfig(name, mac, maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxRdAtomic, maxInline, window, txBurst,
                lossRecovery, rateControl, c);
    }

    public Gid gid() {
        return Gid.fromMac(mac);
    }
}
