package org.urdma.transport.gsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * CM MADs read against frames Linux rxe sent (ib_write_bw -R between two guests, /work/shared/vectors/rxe-vectors.pcap
 * frames 399-401 and 405, the 256-byte MAD after the DETH) and written back byte for byte.
 */
class CmCodecTest {
    static final String REQ_399 = "010702030000000000000002ed1a33a10010000000000000a1331aed000000000000000001064869505400fffe7700030000000000000000"
            + "0000290000000000000000a0319a4aa7ffff37f0ffffffff00000000000000000000ffff0a4d000300000000000000000000ffff0a4d0002"
            + "80ddb0000040009800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040c44e"
            + "0000000000000000000000000a4d00030000000000000000000000000a4d0002";
    static final String REP_400 = "010702030000000000000002ed1a33a10013000000000000c6219972a1331aed0000000000002900000000003c140a00000078e0"
            + "505400fffe770002";
    static final String RTU_401 = "010702030000000000000002ed1a33a10014000000000000a1331aedc6219972";
    static final String DREQ_405 = "010702030000000000000002ed1a33a00015000000000000a0331aedc421997200002a00";

    /** The MAD whose non-zero bytes are {@code hex}: the rest of the 256 bytes is zero, as in the capture. */
    static String full(String hex) {
        return hex + "0".repeat(2 * Mad.SIZE - hex.length());
    }

    static UnsafeBuffer mad(String hex) {
        byte[] b = HexFormat.of().parseHex(full(hex));
        assertEquals(Mad.SIZE, b.length, "test vector length");
        return new UnsafeBuffer(b);
    }

    @Test
    void readsTheRequestRxeSent() {
        UnsafeBuffer b = mad(REQ_399);
        assertEquals(1, Mad.baseVersion(b, 0));
        assertEquals(Mad.CLASS_CM, Mad.mgmtClass(b, 0));
        assertEquals(2, Mad.classVersion(b, 0));
        assertEquals(Mad.METHOD_SEND, Mad.method(b, 0));
        assertEquals(0x00000002ed1a33a1L, Mad.transactionId(b, 0));
        assertEquals(CmAttribute.REQ, Mad.attributeId(b, 0));
        CmReq r = new CmReq();
        r.wrap(b, 0);
        assertEquals(0xa1331aed, r.localCommId());
        assertEquals(PortSpace.TCP.serviceId(0x4869), r.serviceId());
        assertEquals(PortSpace.TCP, PortSpace.of(r.serviceId()));
        assertEquals(18537, PortSpace.port(r.serviceId()));
        assertEquals(0x505400fffe770003L, r.localCaGuid());
        assertEquals(0x29, r.localQpn());
        assertEquals(0, r.responderResources());
        assertEquals(0, r.initiatorDepth());
        assertEquals(20, r.remoteCmResponseTimeout());
        assertEquals(CmReq.SERVICE_RC, r.transportServiceType());
        assertEquals(0x319a4a, r.startingPsn());
        assertEquals(20, r.localCmResponseTimeout());
        assertEquals(7, r.retryCount());
        assertEquals(0xFFFF, r.partitionKey());
        assertEquals(3, r.pathMtu()); // 1024
        assertEquals(7, r.rnrRetryCount());
        assertEquals(15, r.maxCmRetries());
        assertFalse(r.srq());
        assertEquals(0xFFFF, r.primaryLocalLid());
        assertEquals(0xFFFF, r.primaryRemoteLid());
        assertArrayEquals(HexFormat.of().parseHex("00000000000000000000ffff0a4d0003"), r.primaryLocalGid());
        assertArrayEquals(HexFormat.of().parseHex("00000000000000000000ffff0a4d0002"), r.primaryRemoteGid());
        assertEquals(0x80ddb, r.primaryFlowLabel());
        assertEquals(64, r.primaryHopLimit());
        assertFalse(r.primarySubnetLocal());
        assertEquals(0x13, r.primaryLocalAckTimeout());
        int pd = Mad.HEADER + 140;
        assertNull(CmaHeader.check(b, pd));
        assertEquals(0xc44e, CmaHeader.srcPort(b, pd));
        assertEquals(0x0a4d0003, CmaHeader.srcIpv4(b, pd));
        assertEquals(0x0a4d0002, CmaHeader.dstIpv4(b, pd));
    }

    @Test
    void writesTheSameRequestByteForByte() {
        UnsafeBuffer b = new UnsafeBuffer(new byte[Mad.SIZE]);
        CmReq r = new CmReq();
        r.wrap(b, 0);
        r.start(0x00000002ed1a33a1L);
        r.localCommId(0xa1331aed).serviceId(PortSpace.TCP.serviceId(18537)).localCaGuid(0x505400fffe770003L).localQpn(0x29)
                .remoteCmResponseTimeout(20).transportServiceType(CmReq.SERVICE_RC).startingPsn(0x319a4a)
                .localCmResponseTimeout(20).retryCount(7).partitionKey(0xFFFF).pathMtu(3).rnrRetryCount(7).maxCmRetries(15)
                .primaryLocalLid(0xFFFF).primaryRemoteLid(0xFFFF)
                .primaryLocalGid(HexFormat.of().parseHex("00000000000000000000ffff0a4d0003"))
                .primaryRemoteGid(HexFormat.of().parseHex("00000000000000000000ffff0a4d0002"))
                .primaryFlowLabel(0x80ddb).primaryHopLimit(64).primaryLocalAckTimeout(0x13);
        CmaHeader.putIpv4(b, Mad.HEADER + 140, 0x0a4d0003, 0xc44e, 0x0a4d0002);
        assertEquals(full(REQ_399), HexFormat.of().formatHex(b.byteArray()));
    }

    @Test
    void readsAndWritesTheReplyRxeSent() {
        UnsafeBuffer b = mad(REP_400);
        CmRep r = new CmRep();
        r.wrap(b, 0);
        assertEquals(0xc6219972, r.localCommId());
        assertEquals(0xa1331aed, r.remoteCommId());
        assertEquals(0x29, r.localQpn());
        assertEquals(0x3c140a, r.startingPsn());
        assertEquals(15, r.targetAckDelay());
        assertEquals(7, r.rnrRetryCount());
        assertEquals(0x505400fffe770002L, r.localCaGuid());

        UnsafeBuffer w = new UnsafeBuffer(new byte[Mad.SIZE]);
        CmRep x = new CmRep();
        x.wrap(w, 0);
        x.start(0x00000002ed1a33a1L);
        x.localCommId(0xc6219972).remoteCommId(0xa1331aed).localQpn(0x29).startingPsn(0x3c140a).targetAckDelay(15)
                .rnrRetryCount(7).localCaGuid(0x505400fffe770002L);
        assertEquals(full(REP_400), HexFormat.of().formatHex(w.byteArray()));
    }

    @Test
    void writesTheReadyToUseAndDisconnectRequestRxeSent() {
        UnsafeBuffer w = new UnsafeBuffer(new byte[Mad.SIZE]);
        CmRtu rtu = new CmRtu();
        rtu.wrap(w, 0);
        rtu.start(0x00000002ed1a33a1L);
        rtu.localCommId(0xa1331aed).remoteCommId(0xc6219972);
        assertEquals(full(RTU_401), HexFormat.of().formatHex(w.byteArray()));

        CmDreq d = new CmDreq();
        d.wrap(w, 0);
        d.start(0x00000002ed1a33a0L);
        d.localCommId(0xa0331aed).remoteCommId(0xc4219972).remoteQpn(0x2a);
        assertEquals(full(DREQ_405), HexFormat.of().formatHex(w.byteArray()));
    }

    @Test
    void rejectPutsItsFieldsWhereTable108Says() {
        UnsafeBuffer w = new UnsafeBuffer(new byte[Mad.SIZE]);
        CmRej r = new CmRej();
        r.wrap(w, 0);
        r.start(0x1122334455667788L);
        r.localCommId(0).remoteCommId(0xa1331aed).messageRejected(CmRej.REJECTED_REQ).reason(CmRej.INVALID_SERVICE_ID);
        r.privateData(new byte[] {1, 2}, 0, 2);
        byte[] m = w.byteArray();
        // hand-computed: attribute 0x0012 at 16; data at 24: local 0, remote a1331aed, byte 32 = MsgRej<<6 = 0, reason 0x0008 at 34
        assertEquals("010702030000000011223344556677880012000000000000", HexFormat.of().formatHex(m, 0, 24));
        assertEquals("00000000a1331aed00000008", HexFormat.of().formatHex(m, 24, 36));
        assertEquals(1, m[24 + 84]);
        assertEquals(2, m[24 + 85]);
        r.messageRejected(CmRej.REJECTED_REP);
        assertEquals(0x40, m[32] & 0xFF);
        assertEquals(CmRej.REJECTED_REP, r.messageRejected());
    }

    @Test
    void mraAndSidrFieldsSitWhereTheTablesSay() {
        UnsafeBuffer w = new UnsafeBuffer(new byte[Mad.SIZE]);
        CmMra m = new CmMra();
        m.wrap(w, 0);
        m.start(1);
        m.localCommId(0x01020304).remoteCommId(0x05060708).messageMraed(CmMra.MRAED_REP).serviceTimeout(21);
        assertEquals("0102030405060708" + "40" + "a8", HexFormat.of().formatHex(w.byteArray(), 24, 34));
        assertEquals(21, m.serviceTimeout());

        SidrRep s = new SidrRep();
        s.wrap(w, 0);
        s.start(2);
        s.requestId(0x0a0b0c0d).status(SidrRep.VALID).qpn(0x123456).serviceId(PortSpace.UDP.serviceId(7174)).qkey(0x01234567);
        assertEquals("0a0b0c0d" + "00000000" + "12345600" + "0000000001111c06" + "01234567",
                HexFormat.of().formatHex(w.byteArray(), 24, 48));
        SidrReq q = new SidrReq();
        q.wrap(w, 0);
        q.start(3);
        q.requestId(9).partitionKey(0xFFFF).serviceId(PortSpace.IB.serviceId(1));
        assertEquals("00000009ffff000000000000013f0001", HexFormat.of().formatHex(w.byteArray(), 24, 40));
    }

    @Test
    void privateDataLongerThanTheMessageCarriesIsRefusedNamingIt() {
        CmReq r = new CmReq();
        r.wrap(new UnsafeBuffer(new byte[Mad.SIZE]), 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r.privateData(new byte[93], 0, 93));
        assertEquals("private data: ConnectRequest carries at most 92 bytes, was 93", e.getMessage());
    }

    @Test
    void serviceIdsOfThePortSpaces() {
        assertEquals(0x0000000001064869L, PortSpace.TCP.serviceId(0x4869));
        assertEquals(0x0000000001110007L, PortSpace.UDP.serviceId(7));
        assertEquals(0x00000000013F0001L, PortSpace.IB.serviceId(1));
        assertNull(PortSpace.of(0x1234L));
        assertEquals(PortSpace.IB, PortSpace.of(0x00000000013F0001L));
    }
}
