package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.verbs.DeviceAttributes;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpType;

/** A device's limits refuse what exceeds them, naming the field, and let the rest through. */
class DeviceLimitsTest {
    static final DeviceConfig CONFIG = DeviceConfig.named("a", 1); // max_qp_wr 16384, max_sge 16, max_cqe 65536, rd_atomic 16, inline 256

    @Test
    void queueCapacitiesPastTheDevicesAreRefusedByName() {
        try (Rig r = new Rig()) {
            DeviceLimits l = new DeviceLimits(CONFIG, r.fabric.linkA);
            l.checkQpCaps(init().maxSendWr(16384).maxRecvWr(16384).maxSendSge(16).maxRecvSge(16).maxInlineData(256));
            assertMessage("cap.max_send_wr: 16385", () -> l.checkQpCaps(init().maxSendWr(16385)));
            assertMessage("cap.max_recv_wr: 16385", () -> l.checkQpCaps(init().maxRecvWr(16385)));
            assertMessage("cap.max_send_sge/max_recv_sge", () -> l.checkQpCaps(init().maxRecvSge(17)));
            assertMessage("cap.max_inline_data: 257", () -> l.checkQpCaps(init().maxInlineData(257)));
        }
    }

    @Test
    void cqEntriesAndQpCountStayWithinTheDevice() {
        try (Rig r = new Rig()) {
            DeviceLimits l = new DeviceLimits(CONFIG, r.fabric.linkA);
            l.checkCq(1);
            l.checkCq(65536);
            assertMessage("cqe: must be 1..65536, was 0", () -> l.checkCq(0));
            assertMessage("cqe: must be 1..65536, was 65537", () -> l.checkCq(65537));
            l.checkQpCount(1023);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> l.checkQpCount(1024));
            assertTrue(e.getMessage().startsWith("qp: device limit of 1024"), e.getMessage());
        }
    }

    @Test
    void aModifyMayNotAskForMoreMtuThanTheLinkOrMoreReadDepthThanTheDevice() {
        try (Rig r = new Rig()) {
            DeviceLimits l = new DeviceLimits(CONFIG, r.fabric.linkA);
            l.checkModify(new QpAttributes().pathMtu(PathMtu.MTU_1024).maxRdAtomic(16).maxDestRdAtomic(16),
                    QpAttrMask.PATH_MTU | QpAttrMask.MAX_QP_RD_ATOMIC | QpAttrMask.MAX_DEST_RD_ATOMIC);
            assertMessage("max_rd_atomic: 17", () -> l.checkModify(new QpAttributes().maxRdAtomic(17), QpAttrMask.MAX_QP_RD_ATOMIC));
            assertMessage("max_dest_rd_atomic: 17", () -> l.checkModify(new QpAttributes().maxDestRdAtomic(17), QpAttrMask.MAX_DEST_RD_ATOMIC));
            l.checkModify(new QpAttributes().maxRdAtomic(17), 0); // not in the mask: not looked at
            if (r.fabric.linkA.maxPayload() < PathMtu.MTU_4096.bytes()) {
                assertMessage("path_mtu: 4096", () -> l.checkModify(new QpAttributes().pathMtu(PathMtu.MTU_4096), QpAttrMask.PATH_MTU));
            }
        }
    }

    @Test
    void theAttributesReportTheConfiguredLimits() {
        try (Rig r = new Rig()) {
            DeviceAttributes a = new DeviceLimits(CONFIG, r.fabric.linkA).attributes();
            assertEquals(a, r.fabric.a.attributes(), "the device reports its limits");
            assertEquals(CONFIG.maxQp(), a.maxQp());
            assertEquals(CONFIG.maxCqe(), a.maxCqe());
        }
    }

    private static QpInitAttributes init() {
        return new QpInitAttributes().type(QpType.RC);
    }

    private static void assertMessage(String start, org.junit.jupiter.api.function.Executable e) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().startsWith(start), x.getMessage());
    }
}
