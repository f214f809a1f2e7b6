package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.transport.pcap.PcapReader;

/**
 * perftest's multicast send_bw ({@code ib_send_bw -c UD -g -M MGID}) against the stock tool on rxe, no -n on either side
 * (perftest's 1000): urdma's server attaches its UD QP to ::ffff:239.1.2.4 and receives every message the stock client
 * sends to the group (MAC 01:00:5e:01:02:04, DestQP 0xFFFFFF), which the bridge capture shows. The other role needs the
 * guest's interface to have joined the group's IP: rxe takes RoCEv2 from the kernel's UDP socket, and the IP layer
 * drops a multicast datagram of a group nobody joined, while ibv_attach_mcast (all perftest does) only sets the MAC
 * filter; the guest's busybox ip has no autojoin. Transcripts in bench/target/interop/perftest-mcast/.
 */
@Tag("root")
@Tag("interop")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedGuest.class)
class PerftestMulticastInteropTest {
    private static final String MGID = "0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:4";
    private static final byte[] GROUP_MAC = {0x01, 0x00, 0x5e, 0x01, 0x02, 0x04};
    /** rxe routes its RoCEv2 packets: the guest has no route to a multicast group until this. */
    private static final String ROUTE = "ip route add 224.0.0.0/4 dev eth0 2>/dev/null; ";

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
    void killTools() throws Exception {
        guest.run("killall -9 ib_send_bw 2>/dev/null; true", StockToolRun.STEP);
    }

    @ParameterizedTest(name = "urdma-server={0}")
    @ValueSource(booleans = {true})
    void aMulticastSendBwReachesTheGroupsReceiver(boolean urdmaServer) throws Exception {
        String tag = "send-bw-mcast-" + (urdmaServer ? "urdma-server" : "urdma-client");
        Path bridge = out.resolve(tag + "-bridge.pcap");
        String cmd = ROUTE + "ib_send_bw -d rxe0 -x 1 -F -c UD -g -M " + MGID + " -m 1024 -s 1024";
        StockToolRun.Run r = StockToolRun.run(fx, out, tag, List.of("perf", "send-bw", "-g", "-M", MGID, "-m", "1024", "-s", "1024"),
                cmd, urdmaServer, bridge);
        assertEquals(0, r.urdma().exit(), "urdma perf exit\n" + r.transcript());
        assertEquals(0, r.guest().exitCode(), "stock ib_send_bw exit\n" + r.transcript());
        String urdma = r.urdma().out(), stock = r.guest().output();
        assertTrue(urdma.contains("Send BW Multicast Test"), r.transcript());
        Pattern row = Pattern.compile("(?m)^\\s*1024\\s+1000\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+");
        assertTrue(row.matcher(stock).find(), "stock row of 1000 iterations\n" + r.transcript());
        assertTrue(row.matcher(urdma).find(), "urdma row of 1000 iterations\n" + r.transcript());
        if (urdmaServer) assertTrue(urdma.contains("1024-byte messages received: 1000"), r.transcript());
        long toGroup = 0;
        try (PcapReader rd = new PcapReader(bridge)) {
            while (rd.next()) {
                byte[] f = rd.bytes();
                if (f.length < 50 || !Arrays.equals(f, 0, 6, GROUP_MAC, 0, 6)) continue;
                assertEquals(0x0800, (f[12] & 0xFF) << 8 | (f[13] & 0xFF), "RoCEv2 over IPv4");
                assertTrue(Arrays.equals(f, 30, 34, new byte[] {(byte) 239, 1, 2, 4}, 0, 4), "to the group's IP");
                int destQp = (f[42 + 5] & 0xFF) << 16 | (f[42 + 6] & 0xFF) << 8 | (f[42 + 7] & 0xFF);
                assertEquals(0xFFFFFF, destQp, "DestQP of a send to a group");
                toGroup++;
            }
        }
        assertTrue(toGroup >= 1000, "the client's 1000 sends on the bridge to the group's MAC: " + toGroup + "\n" + r.transcript());
    }
}
