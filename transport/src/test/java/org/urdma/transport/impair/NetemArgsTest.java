package org.urdma.transport.impair;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class NetemArgsTest {
    private static String args(ImpairmentConfig c) {
        return String.join(" ", NetemArgs.of(c));
    }

    @Test
    void delayWithJitterAndCorrelationInMicrosecondsAndPercent() {
        assertEquals("delay 20000us 2000us 25%", args(ImpairmentConfig.none().delay(20_000_000, 2_000_000, 0.25)));
        assertEquals("delay 1.5us", args(ImpairmentConfig.none().delay(1_500, 0, 0)));
        assertEquals("delay 10000us 0us 10%", args(ImpairmentConfig.none().delay(10_000_000, 0, 0.1)));
    }

    @Test
    void randomLossWithCorrelation() {
        assertEquals("loss random 0.5%", args(ImpairmentConfig.none().lossRandom(0.005, 0)));
        assertEquals("loss random 1% 25%", args(ImpairmentConfig.none().lossRandom(0.01, 0.25)));
    }

    @Test
    void gilbertElliottAndFourStateLossInNetemOrder() {
        assertEquals("loss gemodel 1% 10% 70% 0.1%",
            args(ImpairmentConfig.none().lossGilbertElliott(0.01, 0.1, 0.7, 0.001)));
        assertEquals("loss state 1% 30% 5% 2% 0.5%",
            args(ImpairmentConfig.none().lossFourState(0.01, 0.3, 0.05, 0.02, 0.005)));
    }

    @Test
    void duplicateReorderWithGapCorruptAndRate() {
        ImpairmentConfig c = ImpairmentConfig.none().delay(10_000_000, 0, 0).duplicate(0.01, 0.5).reorder(0.25, 0.5, 5)
            .corrupt(0.001, 0).rateBps(1_000_000_000L);
        assertEquals(List.of("delay", "10000us", "duplicate", "1%", "50%", "reorder", "25%", "50%", "gap", "5", "corrupt",
            "0.1%", "rate", "1000000000bit"), NetemArgs.of(c));
    }

    @Test
    void theEveryNthDropHasNoNetemFormAndSaysSo() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> NetemArgs.of(ImpairmentConfig.dropEvery(256)));
        assertEquals("impairment dropEveryNth: tc netem has no deterministic drop of every n-th frame", e.getMessage());
    }

    @Test
    void nothingConfiguredGivesNoArguments() {
        assertEquals(List.of(), NetemArgs.of(ImpairmentConfig.none()));
    }
}
