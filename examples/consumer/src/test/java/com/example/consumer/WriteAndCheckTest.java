package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WriteAndCheckTest {
    @Test
    void theWrittenValueIsInThePeersMemory() throws Exception {
        assertEquals(0x0123456789ABCDEFL, WriteAndCheck.writeAndReadBack(0x0123456789ABCDEFL));
    }
}
