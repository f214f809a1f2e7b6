package org.urdma.transport.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.gsi.CmAgent;
import org.urdma.transport.gsi.CmConfig;
import org.urdma.transport.gsi.CmId;
import org.urdma.transport.gsi.CmPeer;
import org.urdma.transport.gsi.CmReq;
import org.urdma.transport.gsi.Mad;
import org.urdma.transport.gsi.PortSpace;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/** The QP a REQ connects: PSNs as the kernel's CM sets them (seen against rxe: each side sends from the other's Starting PSN). */
class CmQpTest {
    @Test
    void eachSideSendsFromThePsnThePeerAdvertisedAndReceivesFromItsOwn() {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            UrdmaDevice d = pair.first();
            var cq = d.verbs().createCq(8, null);
            QueuePair qp = d.pd().createQp(new QpInitAttributes().type(QpType.RC).sendCq(cq).recvCq(cq).maxSendWr(4).maxRecvWr(4)
                    .maxSendSge(1).maxRecvSge(1));
            QpConnector.toInit(qp, MemoryFabric.Connection.defaults().withAccess(AccessFlags.LOCAL_WRITE), 0);
            List<CmId> requests = new ArrayList<>();
            CmAgent agent = new CmAgent(CmConfig.defaults(), (m, o, to) -> { }, new SplittableRandom(3), 1, RdmaCm.gidOf(0x0A000001));
            agent.listen(PortSpace.TCP.serviceId(7174), requests::add);
            UnsafeBuffer b = new UnsafeBuffer(new byte[Mad.SIZE]);
            CmReq r = new CmReq();
            r.wrap(b, 0);
            r.start(5);
            r.localCommId(77).serviceId(PortSpace.TCP.serviceId(7174)).localQpn(0x29).startingPsn(0x319a4a).pathMtu(3)
                    .primaryLocalGid(RdmaCm.gidOf(0x0A000002)).primaryRemoteGid(RdmaCm.gidOf(0x0A000001));
            agent.onMad(b, 0, Mad.SIZE, new CmPeer(RdmaCm.gidOf(0x0A000002), new byte[] {2, 0, 0, 0, 0, 2}, 1), 0);
            CmId id = requests.get(0).qpParameters(0x111111, 3, 1, 1);
            agent.accept(id, new CmQp(qp), new CmId.Events() { }, null, 0);
            new CmQp(qp).toRts(id);
            assertEquals(QpState.RTS, qp.state());
            assertEquals(0x111111, qp.query().rqPsn()); // what our REP advertised
            assertEquals(0x319a4a, qp.query().sqPsn()); // what the REQ advertised
            qp.close();
            cq.close();
        }
    }
}
