package org.urdma.express.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MessageCreditsTest {
    @Test
    void messagesStopOneShortOfThePeersReceivesAndTheLastIsKeptForACreditMessage() {
        MessageCredits c = new MessageCredits(8);
        for (int i = 0; i < 7; i++) {
            assertTrue(c.mayPostMessage());
            c.onSend();
        }
        assertFalse(c.mayPostMessage(), "one credit is kept");
        assertEquals(1, c.available());
        c.onPeerCount(8 + 3);
        assertEquals(4, c.available(), "the peer reposted three");
        c.onPeerCount(8 + 2);
        assertEquals(4, c.available(), "an older count changes nothing");
    }

    @Test
    void aCreditMessageIsDueOnceHalfTheReceivesWereRepostedUnannouncedAndEachSendAnnouncesThem() {
        MessageCredits c = new MessageCredits(8);
        for (int i = 0; i < 3; i++) c.onReposted();
        assertFalse(c.creditDue());
        c.onReposted();
        assertTrue(c.creditDue());
        assertEquals(12, c.onSend(), "the SEND carries every receive posted so far");
        assertFalse(c.creditDue());
    }
}
