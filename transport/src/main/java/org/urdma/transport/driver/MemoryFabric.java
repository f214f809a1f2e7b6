package org.urdma.transport.driver;

import java.util.SplittableRandom;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.link.Ecn;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * Two soft devices joined by a {@link MemoryLink} in one JVM — the embedded default when there is no root
 * or no interface — plus the out-of-band exchange a connection manager would do (QPN, PSN, GID) done in
 * process, to bring QP pairs to RTS.
 */
public final class MemoryFabric {
    public final SoftDevice a;
    public final SoftDevice b;
    public final MemoryLink linkA;
    public final MemoryLink linkB;

    /** Makes the framing of one link end from its device's identity. */
    @FunctionalInterface
    public interface CodecFactory {
        LinkFraming create(DeviceConfig local);

        /** Real frames of the given wire format. */
        static CodecFactory wire(FramingKind kind) {
            return c -> new LinkFraming(kind, c.mac(), c.gid().toBytes());
        }

        /** Real frames; {@code paxiIcrc} false drops the optional ICRC of the PAXI formats. */
        static CodecFactory wire(FramingKind kind, boolean paxiIcrc) {
            return wire(kind, paxiIcrc, Ecn.ECT0);
        }

        /** Real frames whose RoCEv2 / PAXI Standard IP header carries {@code ecn}, like a NIC's ECN setting. */
        static CodecFactory wire(FramingKind kind, boolean paxiIcrc, Ecn ecn) {
            if (ecn == null) throw new IllegalArgumentException("ecn: must not be null");
            return c -> new LinkFraming(kind, paxiIcrc, c.mac(), c.gid().toBytes(), -1, 0, false, ecn);
        }
    }

    public MemoryFabric(DeviceConfig configA, DeviceConfig configB, MemoryLink.Config link, CodecFactory codecs,
                        ImpairmentConfig aToB, ImpairmentConfig bToA, long seed, long startNanos) {
        this(configA, configB, link, codecs, aToB, bToA, seed, startNanos, Telemetry.IN_MEMORY);
    }

    /** Where a device of the fabric counts and journals (the caller closes what it made, after the engines stop). */
    @FunctionalInterface
    public interface Telemetry {
        /** Counters in memory, no journal. */
        Telemetry IN_MEMORY = c -> null;

        /** The counters of the device configured by {@code config}, or null for counters in memory. */
        EngineCounters counters(DeviceConfig config);

        /** Its journal writer ({@link EventJournal#NONE}: none). */
        default EventJournal journal(DeviceConfig config, EngineCounters counters) {
            return EventJournal.NONE;
        }
    }

    public MemoryFabric(DeviceConfig configA, DeviceConfig configB, MemoryLink.Config link, CodecFactory codecs,
                        ImpairmentConfig aToB, ImpairmentConfig bToA, long seed, long startNanos, Telemetry telemetry) {
        MemoryLink[] ends = MemoryLink.pair(link, codecs.create(configA), codecs.create(configB), aToB, bToA);
        linkA = ends[0];
        linkB = ends[1];
        SplittableRandom r = new SplittableRandom(seed);
        a = device(configA, linkA, r.split(), startNanos, telemetry);
        b = device(configB, linkB, r.split(), startNanos, telemetry);
    }

    private static SoftDevice device(DeviceConfig config, MemoryLink link, SplittableRandom random, long startNanos,
                                     Telemetry telemetry) {
        EngineCounters c = telemetry.counters(config);
        if (c == null) c = EngineCounters.inMemory(config.name());
        return new SoftDevice(config, link, random, startNanos, c, telemetry.journal(config, c));
    }

    /** Connection parameters for {@link #connect}. */
    public record Connection(PathMtu mtu, int timeout, int retryCnt, int rnrRetry, int minRnrTimer, int rdAtomic,
                             int access) {
        public static Connection defaults() {
            return new Connection(PathMtu.MTU_1024, 14, 7, 7, 12, 16,
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
        }

        public Connection withMtu(PathMtu m) { return new Connection(m, timeout, retryCnt, rnrRetry, minRnrTimer, rdAtomic, access); }
        public Connection withTimeout(int t) { return new Connection(mtu, t, retryCnt, rnrRetry, minRnrTimer, rdAtomic, access); }
        public Connection withRetryCnt(int r) { return new Connection(mtu, timeout, r, rnrRetry, minRnrTimer, rdAtomic, access); }
        public Connection withRnrRetry(int r) { return new Connection(mtu, timeout, retryCnt, r, minRnrTimer, rdAtomic, access); }
        public Connection withMinRnrTimer(int t) { return new Connection(mtu, timeout, retryCnt, rnrRetry, t, rdAtomic, access); }
        public Connection withAccess(int f) { return new Connection(mtu, timeout, retryCnt, rnrRetry, minRnrTimer, rdAtomic, f); }
    }

    /** Creates a QP on each side with the given init attributes and connects them (RC/UC to RTS; UD to RTS with qkey). */
    public QueuePair[] connect(ProtectionDomain pdA, QpInitAttributes initA, ProtectionDomain pdB, QpInitAttributes initB,
                               Connection c, int psnA, int psnB) {
        QueuePair qa = pdA.createQp(initA);
        QueuePair qb = pdB.createQp(initB);
        bringUp(qa, b, qb.qpNum(), psnB, psnA, c);
        bringUp(qb, a, qa.qpNum(), psnA, psnB, c);
        return new QueuePair[] {qa, qb};
    }

    /** RESET → INIT → RTR → RTS, as an application does after exchanging QPN/PSN/GID out of band. */
    public static void bringUp(QueuePair qp, SoftDevice peer, int peerQpn, int peerPsn, int myPsn, Connection c) {
        QpType t = qp.type();
        QpAttributes a = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1);
        int mask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT;
        if (t == QpType.UD) {
            a.qkey(0x11111111);
            mask |= QpAttrMask.QKEY;
        } else {
            a.accessFlags(c.access());
            mask |= QpAttrMask.ACCESS_FLAGS;
        }
        qp.modify(a, mask);
        a = new QpAttributes().state(QpState.RTR);
        mask = QpAttrMask.STATE;
        if (t != QpType.UD) {
            a.av(new AddressHandleAttributes().dgid(peer.gid(0)).dmac(peer.mac())).pathMtu(c.mtu()).destQpn(peerQpn).rqPsn(peerPsn);
            mask |= QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
            if (t == QpType.RC) {
                a.maxDestRdAtomic(c.rdAtomic()).minRnrTimer(c.minRnrTimer());
                mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
            }
        } else {
            a.pathMtu(c.mtu());
        }
        qp.modify(a, mask);
        a = new QpAttributes().state(QpState.RTS).sqPsn(myPsn);
        mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (t == QpType.RC) {
            a.timeout(c.timeout()).retryCnt(c.retryCnt()).rnrRetry(c.rnrRetry()).maxRdAtomic(c.rdAtomic());
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(a, mask);
    }

    public static QpInitAttributes init(QpType type, CompletionQueue cq, int depth) {
        return new QpInitAttributes().type(type).sendCq(cq).recvCq(cq).maxSendWr(depth).maxRecvWr(depth).maxSendSge(4).maxRecvSge(4);
    }
}
