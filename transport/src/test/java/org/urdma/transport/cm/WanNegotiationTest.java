package org.urdma.transport.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/** WAN features are offered on the command line, carried in urdma's exchange and agreed per connection; DC by default. */
class WanNegotiationTest {
    static final int TS = OpcodeTable.UETH_TS, RETH = OpcodeTable.UETH_PER_PACKET_RETH, SACK = OpcodeTable.UETH_SACK,
            FEC = OpcodeTable.UETH_FEC;

    @Test
    void commandLineOffers() {
        assertEquals(WanOffer.NONE, WanOffer.parse(false, "go-back-n", null, null), "DC mode unless asked");
        assertEquals(WanOffer.FULL, WanOffer.parse(true, null, null, null));
        assertEquals(TS | RETH | SACK | FEC, WanOffer.FULL.uethFlags());
        assertEquals("rrcc", WanOffer.FULL.rateControl());
        assertEquals(TS | RETH | SACK, WanOffer.parse(false, "sack", null, null).uethFlags());
        WanOffer fec = WanOffer.parse(false, null, "8,2", null);
        assertEquals(8, fec.fecData());
        assertEquals(2, fec.fecParity());
        assertTrue(fec.has(FEC) && fec.has(SACK), "FEC repairs what it can, SACK the rest");
        WanOffer cc = WanOffer.parse(false, null, null, "rrcc,ref=800M");
        assertEquals(800_000_000L, cc.referenceBps());
        assertEquals("rrcc", cc.rateControl());
        assertTrue(cc.on());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WanOffer.parse(false, null, "8", null)).getMessage().startsWith("--fec:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WanOffer.parse(false, null, "2,8", null)).getMessage().startsWith("fec:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WanOffer.parse(false, null, null, "bbr")).getMessage().startsWith("--cc:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WanOffer.parse(false, null, null, "rrcc,ref=fast")).getMessage().startsWith("--cc: ref="));
    }

    @Test
    void bothSidesMustOfferAFeature() {
        WanOffer sackOnly = WanOffer.parse(false, "sack", null, null);
        assertEquals(sackOnly.uethFlags(), WanOffer.FULL.agree(sackOnly).uethFlags());
        assertEquals("none", WanOffer.FULL.agree(sackOnly).rateControl(), "one side offers no rate control");
        assertFalse(WanOffer.FULL.agree(WanOffer.NONE).on(), "a DC peer keeps the connection in DC mode");
        WanOffer a = WanOffer.parse(true, null, "8,2", "rrcc,ref=1G");
        WanOffer b = WanOffer.parse(true, null, "4,1", "rrcc,ref=800M");
        WanOffer both = a.agree(b);
        assertEquals(800_000_000L, both.referenceBps());
        assertEquals(4, both.fecData());
        assertEquals(2, both.fecParity());
        assertEquals(both, b.agree(a), "the agreement does not depend on who asks");
    }

    @Test
    void theExchangeCarriesTheOffer() {
        WanOffer offer = WanOffer.parse(true, null, "8,2", "rrcc,ref=10G");
        QpEndpoint e = new QpEndpoint(0, 0x123, 7, org.urdma.verbs.Gid.of(new byte[16]), new byte[6], PathMtu.MTU_1024, 1, 2, 3,
                16, QpEndpoint.Features.ALL).withWan(offer);
        QpEndpoint back = UrdmaExchangeFormat.decode(UrdmaExchangeFormat.encode(e), "peer");
        assertEquals(e, back);
        assertEquals(offer, back.wan());
        assertEquals(WanOffer.NONE, UrdmaExchangeFormat.decode(UrdmaExchangeFormat.encode(e.withWan(WanOffer.NONE)), "peer").wan());
        WanOffer capped = offer.withMax(12_000_000_000L);
        assertEquals(capped, UrdmaExchangeFormat.decode(UrdmaExchangeFormat.encode(e.withWan(capped)), "peer").wan(), "the cap travels too");
    }

    @Test
    void theLowerCapOfBothSidesApplies() {
        WanOffer a = WanOffer.FULL.withMax(2_000_000_000L);
        assertEquals(2_000_000_000L, a.agree(WanOffer.FULL).maxBps(), "one side's cap holds for the connection");
        assertEquals(800_000_000L, a.agree(WanOffer.FULL.withMax(800_000_000L)).maxBps());
        assertEquals(0, WanOffer.FULL.agree(WanOffer.FULL).maxBps());
        assertTrue(a.agree(WanOffer.FULL).toString().endsWith("cc=rrcc,max=2000000000]"), a.agree(WanOffer.FULL).toString());
    }

    @Test
    void theAgreedModeReachesTheQueuePair() {
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("wn-a", 1), DeviceConfig.named("wn-b", 2),
                MemoryLink.Config.defaults(), MemoryFabric.CodecFactory.wire(FramingKind.ROCE2), ImpairmentConfig.none(),
                ImpairmentConfig.none(), 1, 0);
        ProtectionDomain pd = f.a.allocPd();
        var cq = f.a.createCq(16, null);
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults();
        QueuePair wan = pd.createQp(MemoryFabric.init(QpType.RC, cq, 8));
        QueuePair dc = pd.createQp(MemoryFabric.init(QpType.RC, cq, 8));
        QpConnector.toInit(wan, c, 0);
        QpConnector.toInit(dc, c, 0);
        QpConnector.toRts(wan, endpoint(f, wan, WanOffer.FULL), endpoint(f, wan, WanOffer.parse(false, "sack", null, null)), f.b.mac(), c);
        QpConnector.toRts(dc, endpoint(f, dc, WanOffer.FULL), endpoint(f, dc, WanOffer.NONE), f.b.mac(), c);
        assertEquals(TS | RETH | SACK, ((SoftQp) wan).stats().uethFlags());
        assertTrue(((SoftQp) wan).stats().policyNames().startsWith("sack"), ((SoftQp) wan).stats().policyNames());
        assertEquals(0, ((SoftQp) dc).stats().uethFlags(), "a DC peer: DC mode");
        assertTrue(((SoftQp) dc).stats().policyNames().startsWith("go-back-N"), ((SoftQp) dc).stats().policyNames());
        QueuePair sackInDc = pd.createQp(MemoryFabric.init(QpType.RC, cq, 8));
        ((SoftQp) sackInDc).policies(org.urdma.transport.recovery.LossRecovery.sack(), org.urdma.transport.rate.RateControl.none());
        QpConnector.toInit(sackInDc, c, 0);
        assertTrue(assertThrows(IllegalStateException.class, () -> QpConnector.toRts(sackInDc, endpoint(f, sackInDc, WanOffer.NONE),
                endpoint(f, sackInDc, WanOffer.NONE), f.b.mac(), c)).getMessage().startsWith("reliability: sack needs WAN mode"));
        QueuePair ud = pd.createQp(MemoryFabric.init(QpType.UD, cq, 8));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> QpConnector.wan(ud, WanOffer.FULL)).getMessage().startsWith("wan: RC only"));
    }

    private static QpEndpoint endpoint(MemoryFabric f, QueuePair qp, WanOffer offer) {
        return new QpEndpoint(0, qp.qpNum(), 1, f.a.gid(0), f.a.mac(), PathMtu.MTU_1024, 0, 0, 0, 16, QpEndpoint.Features.ALL)
                .withWan(offer);
    }
}
