package org.urdma.verbs;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class QpTransitionsTest {
    @Test
    void rcResetToInitNeedsPkeyPortAccess() {
        QpAttributes a = new QpAttributes().state(QpState.INIT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, QpAttrMask.STATE | QpAttrMask.PORT));
        assertTrue(e.getMessage().contains("ACCESS_FLAGS|PKEY_INDEX"), e.getMessage());
        assertTrue(e.getMessage().contains("required"), e.getMessage());
        assertEquals(QpState.INIT, QpTransitions.validate(QpType.RC, QpState.RESET, a,
                QpAttrMask.STATE | QpAttrMask.PORT | QpAttrMask.PKEY_INDEX | QpAttrMask.ACCESS_FLAGS));
    }

    @Test
    void udResetToInitNeedsQkeyNotAccessFlags() {
        QpAttributes a = new QpAttributes().state(QpState.INIT);
        int base = QpAttrMask.STATE | QpAttrMask.PORT | QpAttrMask.PKEY_INDEX;
        assertEquals(QpState.INIT, QpTransitions.validate(QpType.UD, QpState.RESET, a, base | QpAttrMask.QKEY));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.UD, QpState.RESET, a, base | QpAttrMask.QKEY | QpAttrMask.ACCESS_FLAGS));
        assertTrue(e.getMessage().contains("ACCESS_FLAGS not allowed"), e.getMessage());
    }

    @Test
    void rcInitToRtrNeedsResponderAttributesUcDoesNot() {
        QpAttributes a = new QpAttributes().state(QpState.RTR).av(new AddressHandleAttributes());
        int uc = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        assertEquals(QpState.RTR, QpTransitions.validate(QpType.UC, QpState.INIT, a, uc));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.INIT, a, uc));
        assertTrue(e.getMessage().contains("MIN_RNR_TIMER|MAX_DEST_RD_ATOMIC"), e.getMessage());
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.UC, QpState.INIT, a, uc | QpAttrMask.MAX_DEST_RD_ATOMIC));
        assertTrue(e2.getMessage().contains("not allowed"), e2.getMessage());
    }

    @Test
    void skippingStatesIsRejectedAndErrAndResetAlwaysAllowed() {
        QpAttributes a = new QpAttributes().state(QpState.RTS);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.INIT, a, QpAttrMask.STATE));
        assertTrue(e.getMessage().startsWith("qp_state: INIT -> RTS is not a valid transition"), e.getMessage());
        for (QpState s : QpState.values()) {
            assertEquals(QpState.ERR, QpTransitions.validate(QpType.RC, s, new QpAttributes().state(QpState.ERR), QpAttrMask.STATE));
            assertEquals(QpState.RESET, QpTransitions.validate(QpType.UD, s, new QpAttributes().state(QpState.RESET), QpAttrMask.STATE));
        }
    }

    @Test
    void curStateMustMatch() {
        QpAttributes a = new QpAttributes().state(QpState.RTS).curState(QpState.RTR);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RTS, a, QpAttrMask.STATE | QpAttrMask.CUR_STATE));
        assertTrue(e.getMessage().startsWith("cur_qp_state"), e.getMessage());
    }

    @Test
    void attributeRangesNameTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new QpAttributes().retryCnt(8))
                .getMessage().startsWith("retry_cnt"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new QpAttributes().timeout(32))
                .getMessage().startsWith("timeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new QpAttributes().sqPsn(1 << 24))
                .getMessage().startsWith("sq_psn"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AccessFlags.validateMr(AccessFlags.REMOTE_WRITE))
                .getMessage().contains("requires LOCAL_WRITE"));
    }

    @Test
    void roceV1GidIsEui64OfMac() {
        Gid g = Gid.fromMac(new byte[] {0x02, 0x11, 0x22, 0x33, 0x44, 0x55});
        assertEquals("fe80:0000:0000:0000:0011:22ff:fe33:4455", g.toString());
    }

    @Test
    void opcodeSupportFollowsServiceType() {
        assertFalse(WrOpcode.RDMA_READ.supportedOn(QpType.UC));
        assertFalse(WrOpcode.ATOMIC_FETCH_AND_ADD.supportedOn(QpType.UC));
        assertTrue(WrOpcode.RDMA_WRITE_WITH_IMM.supportedOn(QpType.UC));
        assertFalse(WrOpcode.RDMA_WRITE.supportedOn(QpType.UD));
        assertTrue(WrOpcode.SEND_WITH_IMM.supportedOn(QpType.UD));
    }
}
