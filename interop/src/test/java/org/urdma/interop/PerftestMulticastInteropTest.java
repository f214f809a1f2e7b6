package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.port.PortIdentity;

/**
 * perftest's multicast send_bw ({@code ib_send_bw -c UD -g -M MGID}) against the stock tool on rxe in both roles, no -n
 * on either side (perftest's 1000), on group ::ffff:239.1.2.4 (MAC 01:00:5e:01:02:04). The server attaches its UD QP
 * to the group and counts 1000 messages; the client sends them to the group's MAC with DestQP 0xFFFFFF, which the
 * bridge capture shows.
 *
 * <p>A stock server on rxe needs more than perftest does: rxe takes RoCEv2 from the kernel's UDP socket, and the IP
 * layer drops a multicast datagram of a group the interface has not joined, while ibv_attach_mcast (all perftest does)
 * only adds the group's MAC to the NIC's filter. So the guest's eth0 joins the group's IP first ({@code ip addr add
 * 239.1.2.4/32 dev eth0 autojoin}, with iproute2's ip, which the guest image has as {@code iproute2-ip}) and leaves it
 * after the case. Without the join rxe receives none of the group's packets (its rcvd_pkts stays put) and the stock
 * server waits until it gives up; the same holds between two stock rxe hosts. A stock client needs a route to the
 * group. Transcripts and captures in interop/target/interop/perftest-mcast/.
 */
@Tag("root")
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedGuest.class)
class PerftestMulticastInteropTest {
    private static final String MGID = "0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:4";
    private static final String GROUP = "239.1.2.4";
    private static final byte[] GROUP_MAC = {0x01, 0x00, 0x5e, 0x01, 0x02, 0x04};
    private static final int ITERS = 1000;
    /** rxe routes its RoCEv2 packets: the guest has no route to a multicast group until this. */
    private static final String ROUTE = "ip route add 224.0.0.0/4 dev eth0 2>/dev/null; ";
    /**
     * eth0 joins the group at the IP layer, so the kernel hands the group's datagrams to rxe's UDP socket (iproute2's
     * ip: busybox's has no autojoin and no maddr).
     */
    private static final String JOIN = "iproute2-ip addr add " + GROUP + "/32 dev eth0 autojoin && iproute2-ip maddr show dev eth0"
            + " | grep -q 'inet  *" + GROUP + "$' && ";

    private TwoGuestFixture fx;
    private QemuGuest guest;
    private Path out;

    @BeforeAll
    void boot(TwoGuestFixture shared) throws Exception {
        out = Interop.outputDir("perftest-mcast");
        fx = shared;
        guest = fx.guest(0);
    }

    @AfterEach
    void killToolsAndLeave() throws Exception {
        // the group's address on eth0 would also route the next case's sends to the group back to the guest itself
        guest.run("killall -9 ib_send_bw 2>/dev/null; iproute2-ip addr del " + GROUP + "/32 dev eth0 2>/dev/null; true", StockToolRun.STEP);
    }

    @ParameterizedTest(name = "urdma-server={0}")
    @ValueSource(booleans = {true, false})
    void aMulticastSendBwReachesTheGroupsReceiver(boolean urdmaServer) throws Exception {
        String tag = "send-bw-mcast-" + (urdmaServer ? "urdma-server" : "urdma-client");
        Path bridge = out.resolve(tag + "-bridge.pcap");
        String cmd = (urdmaServer ? ROUTE : JOIN) + "ib_send_bw -d rxe0 -x 1 -F -c UD -g -M " + MGID + " -m 1024 -s 1024";
        List<String> args = new ArrayList<>(List.of("perf", "send-bw", "-g", "-M", MGID, "-m", "1024", "-s", "1024"));
        // UD has no retransmission: a burst the TCG guest cannot take in is lost and the stock server waits for it
        if (!urdmaServer) args.addAll(List.of("--rate_limit", "2", "--rate_units", "M"));
        Map<String, Long> before = StockToolRun.rxeCounters(guest);
        StockToolRun.Run r = StockToolRun.run(fx, out, tag, args, cmd, urdmaServer, bridge);
        long rxeReceived = StockToolRun.rxeCounters(guest).get("rcvd_pkts") - before.get("rcvd_pkts");
        String t = r.transcript() + "\nrxe rcvd_pkts +" + rxeReceived + "\n";
        Files.writeString(out.resolve(tag + ".txt"), t);
        assertEquals(0, r.urdma().exit(), "urdma perf exit\n" + t);
        assertEquals(0, r.guest().exitCode(), "stock ib_send_bw exit\n" + t);
        String urdma = r.urdma().out(), stock = r.guest().output();
        assertTrue(urdma.contains("Send BW Multicast Test"), t);
        // a server prints its row only once it has received all -n messages (perftest fails the run otherwise)
        Pattern row = Pattern.compile("(?m)^\\s*1024\\s+" + ITERS + "\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+");
        assertTrue(row.matcher(stock).find(), "stock row of " + ITERS + " iterations\n" + t);
        assertTrue(row.matcher(urdma).find(), "urdma row of " + ITERS + " iterations\n" + t);
        if (urdmaServer) {
            assertTrue(urdma.contains("1024-byte messages received: " + ITERS), t);
        } else {
            assertEquals(ITERS, rxeReceived, "rxe received urdma's sends to the group\n" + t);
        }
        long toGroup = 0;
        byte[] senderMac = PortIdentity.parseMac(urdmaServer ? TwoGuestFixture.guestMac(0) : TwoGuestFixture.URDMA_MAC);
        try (PcapReader rd = new PcapReader(bridge)) {
            while (rd.next()) {
                byte[] f = rd.bytes();
                if (f.length < 50 || !Arrays.equals(f, 0, 6, GROUP_MAC, 0, 6)) continue;
                assertArrayEquals(senderMac, Arrays.copyOfRange(f, 6, 12), "the client sends to the group");
                assertEquals(0x0800, (f[12] & 0xFF) << 8 | (f[13] & 0xFF), "RoCEv2 over IPv4");
                assertTrue(Arrays.equals(f, 30, 34, new byte[] {(byte) 239, 1, 2, 4}, 0, 4), "to the group's IP");
                int destQp = (f[42 + 5] & 0xFF) << 16 | (f[42 + 6] & 0xFF) << 8 | (f[42 + 7] & 0xFF);
                assertEquals(0xFFFFFF, destQp, "DestQP of a send to a group");
                toGroup++;
            }
        }
        assertEquals(ITERS, toGroup, "the client's sends on the bridge to the group's MAC\n" + t);
    }
}
