package org.urdma.switchemu.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.Gid;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * There is one impairment model: a switch's egress stage and an in-JVM memory link given the same config and seed
 * drop the same frames, for each of netem's loss models and the every-n-th rule.
 */
class ImpairmentSameOnMemoryLinkTest {
    private static final int FRAMES = 20_000;
    private static final byte[] MAC_A = {2, 0, 0, 0, 0, 1};
    private static final byte[] MAC_B = {2, 0, 0, 0, 0, 2};

    /** Indices of the frames a switch's egress impairment dropped. */
    private static BitSet droppedBySwitch(ImpairmentConfig c, long seed) {
        Star net = new Star(2, 10_000_000_000L, 1_000, sw -> { }, p -> { }, 1);
        net.sw.core().addStaticMac(Star.mac(1), 1);
        net.sw.impairEgress(1, new Impairment(c, new SplittableRandom(seed)));
        net.hosts[0].send(new Flow(1, Star.mac(1), 0, 200, FRAMES));
        net.sim.runToIdle(10_000_000_000L);
        FlowStats s = net.hosts[1].stats(1);
        BitSet dropped = new BitSet();
        for (int i = 0; i < FRAMES; i++) {
            if (!s.saw(i)) {
                dropped.set(i);
            }
        }
        return dropped;
    }

    /** Indices (PSNs) of the frames a memory link's impairment dropped. */
    private static BitSet droppedByMemoryLink(ImpairmentConfig c, long seed) {
        MemoryLink[] l = MemoryLink.pair(MemoryLink.Config.defaults(),
            new LinkFraming(FramingKind.ROCE2, MAC_A, Gid.fromMac(MAC_A).toBytes()),
            new LinkFraming(FramingKind.ROCE2, MAC_B, Gid.fromMac(MAC_B).toBytes()), c.seed(seed), null);
        Route route = new Route().set(MAC_B, Gid.fromMac(MAC_B).toBytes());
        UnsafeBuffer payload = new UnsafeBuffer(new byte[128]);
        BitSet seen = new BitSet();
        long now = 0;
        for (int i = 0; i < FRAMES; i++) {
            now += 1_000;
            TxPacket t = l[0].claim(0x04, 128, route, now);
            t.start(0x04, 0x12, i, false, false);
            t.payload(payload, 0, 128);
            l[0].commit(t, route, now);
            l[1].receive(now + 10_000, (p, at) -> seen.set(p.psn()), 100);
        }
        l[1].receive(now + 10_000, (p, at) -> seen.set(p.psn()), 100);
        BitSet dropped = new BitSet();
        dropped.set(0, FRAMES);
        dropped.andNot(seen);
        return dropped;
    }

    @Test
    void theSameSeedDropsTheSameFramesOnTheMemoryLinkAsInTheSwitch() {
        List<ImpairmentConfig> models = new ArrayList<>();
        models.add(ImpairmentConfig.none().lossRandom(0.02, 0));
        // netem's correlated draw (get_crandom) lowers the loss rate: 2 % at 0.25 drops ~1 frame in 20k, 30 % ~23 %
        models.add(ImpairmentConfig.none().lossRandom(0.3, 0.25));
        models.add(ImpairmentConfig.none().lossGilbertElliott(0.01, 0.3, 0.8, 0.001));
        models.add(ImpairmentConfig.none().lossFourState(0.01, 0.3, 0.1, 0.05, 0.002));
        models.add(ImpairmentConfig.none().lossRandom(0.01, 0).dropEveryNth(97));
        long seed = 2016;
        for (ImpairmentConfig c : models) {
            BitSet sw = droppedBySwitch(c, seed);
            BitSet link = droppedByMemoryLink(c, seed);
            assertTrue(sw.cardinality() > FRAMES / 200, "the model drops: " + sw.cardinality());
            assertEquals(sw, link, "same seed, same dropped frames");
            seed++;
        }
    }
}
