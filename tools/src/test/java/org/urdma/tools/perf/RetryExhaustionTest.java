package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RetryExhaustionTest {
    @Test
    void aPeerThatKeptNakingIsNotCalledSilent() {
        assertEquals(": the peer kept NAKing, 7 sequence-error NAKs and 1 ACK timeout since the last progress, retries spent "
                + "(--retry); it was answering but saw gaps (frames lost or reordered, or its receive path fell behind)",
                RetryExhaustion.of(7, 0, 1));
    }

    @Test
    void onlyTimeoutsMeanThePeerStoppedAcknowledging() {
        assertEquals(": the peer stopped acknowledging (dead or unreachable), 0 sequence-error NAKs and 8 ACK timeouts since "
                + "the last progress, retries spent (--retry)", RetryExhaustion.of(0, 0, 8));
    }

    @Test
    void missingReadResponsesAreNamed() {
        assertEquals(": responses kept going missing, 0 sequence-error NAKs, 8 missing READ/atomic responses and 0 ACK "
                + "timeouts since the last progress, retries spent (--retry)", RetryExhaustion.of(0, 8, 0));
    }
}
