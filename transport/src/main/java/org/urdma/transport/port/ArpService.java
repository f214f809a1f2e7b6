package org.urdma.transport.port;

import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The port's ARP: answers requests for its own IPv4 address, learns senders and answers into the
 * {@link ArpResolver}, and sends the resolver's requests. Runs on the engine thread inside a link's
 * receive and flush; no allocation after construction.
 */
public final class ArpService {
    private final PortIdentity port;
    private final long mac;
    private final ArpResolver resolver;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final ArpResolver.RequestSender requestSender = this::sendRequest;
    private FrameSender out;
    private int tci = -1;
    private long requestsAnswered, repliesReceived, ignored, sendFailures;

    public ArpService(PortIdentity port, ArpResolver resolver) {
        this.port = port;
        this.mac = port.macLong();
        this.resolver = resolver;
    }

    /** Where frames go, and the 802.1Q TCI to tag them with (-1 for none). Set once by the link. */
    public void attach(FrameSender sender, int vlanTci) {
        this.out = sender;
        this.tci = vlanTci;
    }

    public ArpResolver resolver() {
        return resolver;
    }

    public PortIdentity port() {
        return port;
    }

    /** Handles a frame already known to be ARP ({@code body} from {@link ArpFrame#bodyOffset}). */
    public void onArp(DirectBuffer b, int body, long now) {
        int op = ArpFrame.operation(b, body);
        int spa = ArpFrame.senderIp(b, body);
        long sha = ArpFrame.senderMac(b, body);
        int tpa = ArpFrame.targetIp(b, body);
        if (!port.hasIpv4() || tpa != port.ipv4() || spa == port.ipv4()) {
            ignored++;
            return;
        }
        resolver.learn(spa, sha, now); // RFC 826: the sender of a packet addressed to us is worth remembering
        if (op == ArpFrame.REQUEST) {
            int len = ArpFrame.encode(scratch, 0, sha, mac, tci, ArpFrame.REPLY, port.ipv4(), sha, spa);
            if (out != null && out.sendFrame(scratch, 0, len)) requestsAnswered++;
            else sendFailures++;
        } else {
            repliesReceived++;
        }
    }

    /** Sends due requests (resolver retries); returns how many. */
    public int poll(long now) {
        return port.hasIpv4() && out != null ? resolver.poll(now, requestSender) : 0;
    }

    private boolean sendRequest(int ip) {
        int len = ArpFrame.encode(scratch, 0, ArpFrame.BROADCAST, mac, tci, ArpFrame.REQUEST, port.ipv4(), 0, ip);
        boolean ok = out.sendFrame(scratch, 0, len);
        if (!ok) sendFailures++;
        return ok;
    }

    public long requestsAnswered() {
        return requestsAnswered;
    }

    public long repliesReceived() {
        return repliesReceived;
    }

    /** ARP frames not for this port's address. */
    public long ignored() {
        return ignored;
    }
}
