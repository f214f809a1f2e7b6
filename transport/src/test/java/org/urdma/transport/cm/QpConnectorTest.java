package org.urdma.transport.cm;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/** QpConnector brings every service type to RTS with the attribute masks the engine accepts. */
class QpConnectorTest {
    @ParameterizedTest
    @EnumSource(QpType.class)
    void everyServiceTypeReachesRtsFromExchangedEndpoints(QpType type) {
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("qc-a", 1), DeviceConfig.named("qc-b", 2),
                MemoryLink.Config.defaults(), MemoryFabric.CodecFactory.wire(FramingKind.ROCE2), ImpairmentConfig.none(),
                ImpairmentConfig.none(), 1, 0);
        ProtectionDomain pd = f.a.allocPd();
        CompletionQueue cq = f.a.createCq(16, null);
        QueuePair qp = pd.createQp(MemoryFabric.init(type, cq, 8));
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
        QpEndpoint local = new QpEndpoint(0, qp.qpNum(), 1, f.a.gid(0), f.a.mac(), PathMtu.MTU_4096, 0, 0, 0, 16,
                QpEndpoint.Features.ALL);
        QpEndpoint remote = new QpEndpoint(0, 0x123, 2, f.b.gid(0), f.b.mac(), PathMtu.MTU_4096, 0, 0, 0, 16,
                QpEndpoint.Features.ALL);
        QpConnector.toInit(qp, c, 0x11111111);
        QpConnector.toRts(qp, local, remote, f.b.mac(), c);
        assertEquals(QpState.RTS, qp.state());
    }

    @Test
    void theSmallerMtuWins() {
        assertEquals(PathMtu.MTU_1024, QpConnector.min(PathMtu.MTU_4096, PathMtu.MTU_1024));
    }
}
