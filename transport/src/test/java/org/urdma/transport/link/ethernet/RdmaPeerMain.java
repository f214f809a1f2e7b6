package org.urdma.transport.link.ethernet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.NetInterface;
import org.urdma.transport.cm.ConnectionManager;
import org.urdma.transport.cm.ExchangeChannel;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.cm.QpHandshake;
import org.urdma.transport.cm.UrdmaExchangeFormat;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;
import org.urdma.verbs.ReceiveWorkRequest;

/**
 * The server side of the two-JVM tests, started inside a namespace with {@code ip netns exec}:
 * {@code RdmaPeerMain IF FRAMING IP/NN PORT MODE} where MODE is {@code verify} (check what the client
 * wrote, sent and added, exit 0 when all is right, 3 otherwise) or {@code hold} (stay up until killed).
 * Prints LISTENING when it accepts connections and READY after the handshake.
 */
public final class RdmaPeerMain {
    static final int REGION = 1 << 20;
    static final int WRITE_LEN = 256 * 1024;
    static final int SEND_AT = 600_000;
    static final int SEND_LEN = 9000;
    static final int ATOMIC_AT = REGION - 8;

    public static void main(String[] args) throws Exception {
        String ifname = args[0];
        FramingKind kind = FramingKind.valueOf(args[1].toUpperCase().replace('-', '_'));
        String ip = args[2];
        int port = Integer.parseInt(args[3]);
        String mode = args[4];
        EthernetLinkConfig cfg = EthernetLinkConfig.of(kind, PortIdentity.of(NetInterface.lookup(ifname).mac(), ip));
        AfPacketLink link = AfPacketLink.open(ifname, cfg, AfPacketOptions.Version.V2);
        int status;
        try (Port p = new Port("server", link, link.datapath(), QpType.RC, REGION, 7);
             ConnectionManager cm = new ConnectionManager(new ConnectionManager.Config(Duration.ofSeconds(20), Duration.ofSeconds(60)));
             ConnectionManager.Listener l = cm.listen(new InetSocketAddress(port))) {
            org.urdma.transport.cm.QpConnector.toInit(p.qp, connection(), 0);
            p.qp.postRecv(new ReceiveWorkRequest().wrId(1).addSge(p.mr, SEND_AT, SEND_LEN));
            System.out.println("LISTENING " + cm.transport());
            System.out.flush();
            UrdmaExchangeFormat f = new UrdmaExchangeFormat();
            try (ExchangeChannel ch = l.accept(Duration.ofSeconds(30))) {
                QpEndpoint peer = QpHandshake.connect(ch, f, p.device, p.datapath, p.qp, p.endpoint(), connection(), 0, 2_000_000_000L);
                System.out.println("READY peer " + peer);
                System.out.flush();
                if (mode.equals("hold")) {
                    Thread.sleep(Long.MAX_VALUE);
                }
                f.barrier(ch, p.endpoint(), "run finished");
                status = verify(p.memory()) ? 0 : 3;
                var wc = p.await(1000);
                if (wc.byteLen != SEND_LEN) status = 3;
                f.finish(ch);
            }
            System.out.println((status == 0 ? "VERIFIED " : "MISMATCH ") + p.datapath.counters());
        }
        System.exit(status);
    }

    static MemoryFabric.Connection connection() {
        return MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096);
    }

    static byte pattern(long i) {
        return (byte) (i * 131 + (i >>> 9));
    }

    /** What the client is expected to have done to the server's region. */
    static boolean verify(MemorySegment m) {
        for (long i = 0; i < WRITE_LEN; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != pattern(i)) {
                System.out.println("WRITE mismatch at " + i);
                return false;
            }
        }
        for (long i = 0; i < SEND_LEN; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, SEND_AT + i) != pattern(i + 7)) {
                System.out.println("SEND mismatch at " + i);
                return false;
            }
        }
        long v = m.get(ValueLayout.JAVA_LONG, ATOMIC_AT);
        if (v != 15) {
            System.out.println("atomic value " + v + " != 15");
            return false;
        }
        return true;
    }
}
