package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;

/** The path MTU a RoCE port offers for an interface MTU is the one the kernel's rxe picks (active_mtu). */
class EthernetDatapathMtuTest {
    private static EthernetDatapath datapath(FramingKind kind) {
        return new EthernetDatapath(EthernetLinkConfig.of(kind, PortIdentity.of(PortIdentity.parseMac("02:00:00:00:00:01"), "10.9.0.1/24")));
    }

    @Test
    void roceGetsWhatRxeGetsOnTheSameInterfaceMtu() {
        for (FramingKind k : new FramingKind[] {FramingKind.ROCE1, FramingKind.ROCE2}) {
            EthernetDatapath d = datapath(k);
            // rxe: guest MTU 1500 -> active_mtu 1024, 4200 -> 4096 (it was 2048 here, and 4 KiB packets from rxe were NAKed)
            assertEquals(1024, d.maxPayloadFor(1500), k.cliName());
            assertEquals(4096, d.maxPayloadFor(4200), k.cliName());
            assertEquals(2048, d.maxPayloadFor(4175), k.cliName());
            assertEquals(4096, d.maxPayloadFor(9000), k.cliName());
        }
    }

    @Test
    void theLargestRoceFrameAtThatMtuFitsTheInterface() {
        EthernetDatapath d = datapath(FramingKind.ROCE2);
        int p = d.maxPayloadFor(4176);
        // IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ImmDt 4 + payload + ICRC 4 (WRITE ONLY with immediate)
        assertTrue(20 + 8 + 12 + 16 + 4 + p + 4 <= 4176, "payload " + p);
        // and a UD SEND ONLY with immediate: DETH 8 + ImmDt 4
        assertTrue(20 + 8 + 12 + 8 + 4 + p + 4 <= 4176, "payload " + p);
    }

    @Test
    void aFull4096BytePacketIsEncodedForAnInterfaceOfMtu4200() {
        EthernetDatapath d = datapath(FramingKind.ROCE2);
        byte[] dgid = new byte[16];
        dgid[10] = (byte) 0xff;
        dgid[11] = (byte) 0xff;
        dgid[12] = 10;
        dgid[13] = 9;
        dgid[15] = 2;
        org.urdma.transport.packet.Route route = new org.urdma.transport.packet.Route().set(new byte[] {2, 0, 0, 0, 0, 0}, dgid);
        org.agrona.concurrent.UnsafeBuffer payload = new org.agrona.concurrent.UnsafeBuffer(new byte[4096]);
        org.agrona.concurrent.UnsafeBuffer frame = new org.agrona.concurrent.UnsafeBuffer(new byte[65536]);
        // the TAP link's limit for MTU 4200: MTU + 18; the frame: 14 + 20 + 8 + 12 + 4096 + 4 (it was refused as too long)
        assertEquals(4154, d.fit(0x00, 4096, 4200 + 18)); // RC SEND FIRST
        var t = d.begin(frame, 0).start(0x00, 0x11, 0, false, false).payload(payload, 0, 4096);
        assertEquals(4154, d.end(t, route, 0));
        assertEquals(0, d.counters().txTooLong);
        // a frame that does not fit is still refused and counted
        assertEquals(-1, d.fit(0x00, 4096, 4150));
        assertEquals(1, d.counters().txTooLong);
    }
}
