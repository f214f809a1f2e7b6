package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/** ibv_post_send's checks: each refusal names its field; a good request gives its total length. */
class SendChecksTest {
    @Test
    void aGoodRequestGivesItsTotalLength() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            MemoryRegion m = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            assertEquals(300, SendChecks.check(a, new SendWorkRequest().opcode(WrOpcode.SEND).addSge(m, 0, 100).addSge(m, 200, 200)));
        }
    }

    @Test
    void eachBadRequestIsRefusedByItsField() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            MemoryRegion m = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            SendWorkRequest many = new SendWorkRequest().opcode(WrOpcode.SEND);
            for (int i = 0; i <= a.maxSendSge; i++) many.addSge(m, i, 1);
            refused("num_sge: ", a, many);
            refused("send_flags: INLINE is not allowed for RDMA_READ", a, new SendWorkRequest().opcode(WrOpcode.RDMA_READ)
                    .flags(SendFlags.INLINE).addSge(m, 0, 8).remote(0x1000, 1));
            refused("send_flags: INLINE payload", a, new SendWorkRequest().opcode(WrOpcode.SEND).flags(SendFlags.INLINE)
                    .addSge(m, 0, a.maxInline + 1));
            refused("sg_list: an atomic needs exactly one 8-byte SGE", a, new SendWorkRequest().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .addSge(m, 0, 16).remote(0x1000, 1));
        }
    }

    @Test
    void aUdSendNeedsAnAddressHandleOfItsPd() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.connect(QpType.UD, org.urdma.transport.driver.MemoryFabric.Connection.defaults())[0];
            MemoryRegion m = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            refused("wr.ud.ah: must be an address handle", a, new SendWorkRequest().opcode(WrOpcode.SEND).addSge(m, 0, 8));
        }
    }

    private static void refused(String start, SoftQp qp, SendWorkRequest wr) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SendChecks.check(qp, wr));
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }
}
