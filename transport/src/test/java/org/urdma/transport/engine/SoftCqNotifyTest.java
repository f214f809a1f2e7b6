package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * The CQ's arm/publish handshake, interleaving by interleaving: a consumer that arms, polls and sleeps when the poll
 * was empty, against a push placed before the arm, between arm and poll, after the poll, and inside the push between
 * its read of the arm and its publish (the seam). Whenever the consumer would sleep, exactly one event waits for it.
 */
class SoftCqNotifyTest {
    private static final boolean SOLICITED = true;

    private final SoftChannel channel = new SoftChannel();
    private final SoftCq cq = new SoftCq(idleDevice(), 16, channel);
    private final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};

    @Test
    void aPushBeforeTheArmIsFoundByThePollAndSignalsNothing() {
        push(WcStatus.SUCCESS, false);
        cq.requestNotify(false);
        assertEquals(1, cq.poll(wc));
        assertNull(channel.poll(), "the consumer found it by polling: no event");
    }

    @Test
    void aPushBetweenArmAndPollSignalsOnceBesideThePoll() {
        cq.requestNotify(false);
        push(WcStatus.SUCCESS, false);
        assertEquals(1, cq.poll(wc));
        assertEquals(1, events());
    }

    @Test
    void aPushAfterAnEmptyPollWakesTheSleeperOnce() {
        cq.requestNotify(false);
        assertEquals(0, cq.poll(wc));
        push(WcStatus.SUCCESS, false);
        assertEquals(1, events());
        assertEquals(1, cq.poll(wc));
    }

    @Test
    void anArmAndEmptyPollInsideAPushBeforeItPublishesIsStillSignalled() {
        int[] polled = {-1};
        cq.beforePublish = () -> {
            cq.beforePublish = null; // the consumer's steps run once, after the push read the word unarmed
            cq.requestNotify(false);
            polled[0] = cq.poll(wc);
        };
        push(WcStatus.SUCCESS, false);
        assertEquals(0, polled[0], "the consumer polled before the publish: it goes to sleep");
        assertEquals(1, events(), "so the push, retrying after the arm, must wake it");
        assertEquals(1, cq.poll(wc));
    }

    @Test
    void anArmInsideAPushIsNotLostWhenTheCompletionDoesNotFireIt() {
        cq.beforePublish = () -> {
            cq.beforePublish = null;
            cq.requestNotify(SOLICITED);
        };
        push(WcStatus.SUCCESS, false);
        assertEquals(0, events(), "an unsolicited success does not fire a solicited arm");
        push(WcStatus.SUCCESS, SOLICITED);
        assertEquals(1, events(), "the arm made during the first push holds for the next solicited one");
    }

    @Test
    void aSolicitedArmFiresOnceOnTheSolicitedCompletion() {
        cq.requestNotify(SOLICITED);
        push(WcStatus.SUCCESS, false);
        assertEquals(0, events());
        push(WcStatus.SUCCESS, SOLICITED);
        push(WcStatus.SUCCESS, SOLICITED);
        assertEquals(1, events(), "fired once, then disarmed");
    }

    @Test
    void aSolicitedArmFiresOnceOnAnError() {
        cq.requestNotify(SOLICITED);
        push(WcStatus.REM_ACCESS_ERR, false);
        push(WcStatus.REM_ACCESS_ERR, false);
        assertEquals(1, events());
    }

    @Test
    void aFiredArmIsSpentUntilTheConsumerArmsAgain() {
        cq.requestNotify(false);
        push(WcStatus.SUCCESS, false);
        push(WcStatus.SUCCESS, false);
        assertEquals(1, events());
        cq.requestNotify(false);
        push(WcStatus.SUCCESS, false);
        assertEquals(1, events());
        assertEquals(2, cq.poll(wc));
        assertEquals(1, cq.poll(wc));
    }

    @Test
    void everyPlacementOfOnePushAgainstArmPollSleepLeavesNoSleeperUnwoken() {
        // positions: 0 before the arm, 1 between arm and poll, 2 after the poll, 3 inside the push before its publish
        for (int at = 0; at < 4; at++) {
            for (int kind = 0; kind < 3; kind++) {
                SoftChannel ch = new SoftChannel();
                SoftCq q = new SoftCq(idleDevice(), 16, ch);
                boolean solicitedOnly = kind > 0;
                WcStatus st = kind == 2 ? WcStatus.REM_ACCESS_ERR : WcStatus.SUCCESS;
                boolean solicited = kind == 1;
                int[] polled = {-1};
                Runnable consumer = () -> {
                    q.requestNotify(solicitedOnly);
                    polled[0] = q.poll(wc);
                };
                if (at == 0) push(q, st, solicited);
                if (at <= 1) q.requestNotify(solicitedOnly);
                if (at == 1) push(q, st, solicited);
                if (at <= 1) polled[0] = q.poll(wc);
                if (at == 2) {
                    consumer.run();
                    push(q, st, solicited);
                }
                if (at == 3) {
                    q.beforePublish = () -> {
                        q.beforePublish = null;
                        consumer.run();
                    };
                    push(q, st, solicited);
                }
                int events = 0;
                while (ch.poll() != null) events++;
                String where = "push at " + at + ", kind " + kind;
                if (polled[0] == 0) assertEquals(1, events, where + ": the consumer sleeps, one event must wake it");
                else assertEquals(at == 0 ? 0 : 1, events, where);
            }
        }
    }

    private int events() {
        int n = 0;
        while (channel.poll() != null) n++;
        return n;
    }

    private void push(WcStatus st, boolean solicited) {
        push(cq, st, solicited);
    }

    private static void push(SoftCq q, WcStatus st, boolean solicited) {
        q.push(7, st, WcOpcode.RECV, 0, 0, 0, 0x11, 0, 0, solicited);
    }

    static SoftDevice idleDevice() {
        return new SoftDevice(DeviceConfig.named("cq0", 1), new SilentLink(), new SplittableRandom(1), 0);
    }
}
