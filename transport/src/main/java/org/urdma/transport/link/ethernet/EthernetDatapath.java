package org.urdma.transport.link.ethernet;

import java.io.IOException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongHashSet;
import org.urdma.transport.link.Ecn;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.port.ArpFrame;
import org.urdma.transport.port.ArpResolver;
import org.urdma.transport.port.ArpService;
import org.urdma.transport.port.GidTable;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.port.FrameSender;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.EthernetHeader;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.MacControlFrame;

/**
 * What AF_PACKET and TAP links share: framing a packet the engine built in a TX slot (with the 802.1Q tag), and
 * sorting received frames — ARP to the port's {@link ArpService}, our RDMA frames to the codec and the engine,
 * everything else counted and skipped. One instance per link, used by the engine thread only.
 */
public final class EthernetDatapath {
    private static final int TPID = 0x8100;

    private final EthernetLinkConfig config;
    private final LinkFraming framing;
    private final AnyFrameDecoder classifier;
    private final FramingKind kind;
    private final GidTable gids;
    private final ArpService arp;
    private final long mac;
    /** Group MACs the port accepts: those of the multicast groups its QPs attached to. */
    private final LongHashSet multicast = new LongHashSet();
    final LinkCounters counters = new LinkCounters();
    private final PriorityPause pause;
    /** PAXI CBFC, or null when the link runs PFC. */
    private final CreditFlow cbfc;
    private FrameSender out;
    /** Where credit frames go: the last sender of our frames (one peer per CBFC link, as on a PAXI point-to-point link). */
    private final Route peer = new Route();
    private final byte[] peerMacBytes = new byte[6];
    private final byte[] peerGidBytes = new byte[16];
    private long peerMac = -1;
    private final UnsafeBuffer creditFrame = new UnsafeBuffer(new byte[256]);
    private final String pauseRateSource;
    private PcapWriter capture;
    private long captureClockOffset;

    /** rxe's RXE_MAX_HDR_LENGTH: what an interface MTU must hold beyond the RoCE payload. */
    public static final int ROCE_MAX_HEADER = 80;

    public EthernetDatapath(EthernetLinkConfig config) {
        this(config, 0, 0);
    }

    /**
     * @param interfaceSpeedBps the interface's speed as the kernel reports it (ethtool), or 0 when it reports none:
     *                          PAUSE/PFC quanta are timed at the configured rate, else this, else 10 Gbit/s
     * @param rxBufferFrames    frames the link's RX buffer holds: CBFC's initial credit per VC is an eighth of it
     *                          unless configured
     */
    public EthernetDatapath(EthernetLinkConfig config, long interfaceSpeedBps, int rxBufferFrames) {
        this.config = config;
        long rate;
        if (config.linkRateBps() > 0) {
            rate = config.linkRateBps();
            pauseRateSource = "configured";
        } else if (interfaceSpeedBps > 0) {
            rate = interfaceSpeedBps;
            pauseRateSource = "interface speed";
        } else {
            rate = EthernetLinkConfig.DEFAULT_LINK_RATE;
            pauseRateSource = "default, the interface reports no speed";
        }
        this.pause = new PriorityPause(counters, rate);
        this.cbfc = config.flowControl() != FlowControl.CBFC ? null
                : new CreditFlow(counters, config.cbfcCredits() > 0 ? config.cbfcCredits() : Math.max(1, rxBufferFrames / CreditFlow.VCS));
        this.kind = config.framing();
        this.gids = new GidTable(config.port());
        this.framing = new LinkFraming(kind, true, config.port().mac(), gids.gidFor(kind).toBytes(), config.vlanId(),
                config.pcp(), config.pcpFromTrafficClass(), config.ecn());
        this.classifier = kind == FramingKind.PAXI_AFH1 || kind == FramingKind.PAXI_AFH2
                ? new AnyFrameDecoder(kind, false, true)
                : kind == FramingKind.PAXI_LITE ? new AnyFrameDecoder(null, true, false) : new AnyFrameDecoder();
        this.arp = new ArpService(config.port(), new ArpResolver(256, config.arp()));
        this.mac = config.port().macLong();
    }

    public EthernetLinkConfig config() {
        return config;
    }

    public GidTable gids() {
        return gids;
    }

    public ArpService arp() {
        return arp;
    }

    public LinkFraming framing() {
        return framing;
    }

    public LinkCounters counters() {
        return counters;
    }

    /** The rate PAUSE/PFC quanta are timed at (bit/s). */
    public long pauseRateBps() {
        return pause.rateBps();
    }

    /** Where {@link #pauseRateBps()} came from: "configured", "interface speed" or the default. */
    public String pauseRateSource() {
        return pauseRateSource;
    }

    /** One line for a log: the flow control and the rate its quanta are timed at (or the CBFC credit). */
    public String flowControlLine() {
        if (cbfc != null) return "cbfc, " + cbfc.initialCredits() + " frames of credit per VC";
        return "pfc, pause quanta at " + pause.rateBps() / 1_000_000 + " Mbit/s ("
                + pauseRateSource + ")";
    }

    /**
     * Adds the pause counters (and CBFC credits) to the device's engine counters too, per priority
     * ({@link org.urdma.transport.counters.Counter#PAUSE_FRAMES_RCVD}, {@code PAUSE_TIME_NS}). Engine thread.
     */
    public void engineCounters(EngineCounters c) {
        pause.engineCounters(c);
        if (cbfc != null) cbfc.engineCounters(c);
    }

    /** How the link sends frames of its own (CBFC credit frames); the link's ARP sender. */
    public void attach(FrameSender sender) {
        this.out = sender;
    }

    /** CBFC: credits VC {@code vc} may still spend, or -1 on a PFC link. */
    public int cbfcCredits(int vc) {
        return cbfc == null ? -1 : cbfc.credits(vc);
    }

    /** The priority a packet towards {@code route} leaves with: its 802.1Q PCP (untagged: {@code config.pcp()}). */
    public int priority(Route route) {
        return config.pcpFromTrafficClass() ? (route.trafficClass() >>> 5) & 7 : config.pcp();
    }

    /**
     * Whether a packet towards {@code route} may start now: false while its priority is paused by PFC/PAUSE or, on
     * a CBFC link, its VC has no credit (counted; the engine retries on a later pass, {@link #nextEventTime()} says
     * when a pause ends).
     */
    public boolean mayStart(Route route, long now) {
        int p = priority(route);
        if (pause.paused(p, now) || (cbfc != null && !cbfc.mayStart(p))) {
            counters.txPaused++;
            return false;
        }
        return true;
    }

    /** Time-based housekeeping: ends pauses that ran out, so their time is counted; CBFC: returns credits that are due. */
    public void poll(long now) {
        pause.poll(now);
        if (cbfc != null && out != null && peerMac >= 0 && cbfc.due(now)) returnCredits(now);
    }

    /** When the earliest running pause ends or owed CBFC credits are due (a simulated driver wakes then), or Long.MAX_VALUE. */
    public long nextEventTime() {
        return Math.min(pause.nextEnd(), cbfc == null || peerMac < 0 ? Long.MAX_VALUE : cbfc.returnDeadline());
    }

    private void returnCredits(long now) {
        TxPacket t = framing.begin(creditFrame, 0);
        t.start(Opcode.PAXI_CBFC_CREDIT, 0, 0, false, false);
        cbfc.write(t);
        int len = framing.end(t, peer);
        if (out.sendFrame(creditFrame, 0, len)) cbfc.returned(now); // else owed still: tried again on the next poll
    }

    /** The TCI this link tags ARP and untagged-by-class frames with, or -1. */
    int baseTci() {
        return config.tagged() ? (config.pcp() << 13) | config.vlanId() : -1;
    }

    /**
     * Records every frame sent and received to {@code writer} (engine thread only). Timestamps are the engine's
     * {@code now} plus {@code clockOffsetNanos} (e.g. epoch minus nanoTime, taken once by the caller).
     */
    public void capture(PcapWriter writer, long clockOffsetNanos) {
        this.capture = writer;
        this.captureClockOffset = clockOffsetNanos;
    }

    /**
     * Largest standard path MTU that fits an interface of {@code interfaceMtu}, within the ceiling. RoCE framings use
     * the rule of the kernel's rxe (payload up to MTU - {@value #ROCE_MAX_HEADER}, room for GRH or IPv4+UDP, BTH, the
     * largest IBTA extension headers and the ICRC), so both ends of a RoCE link pick the same path MTU: MTU 4200 gives
     * 4096, where sizing for every URDMA extension header gave 2048 and each 4 KiB packet from rxe met an
     * invalid-request NAK. Other framings: the biggest frame the codec can build must fit.
     */
    public int maxPayloadFor(int interfaceMtu) {
        for (int p = config.maxPayloadCeiling(); p >= 256; p >>= 1) {
            if (kind.usesBth() ? p <= interfaceMtu - ROCE_MAX_HEADER
                    // maxFrameLength counts a VLAN tag; the kernel takes MTU + 14 untagged, MTU + 18 tagged
                    : framing.maxFrameLength(p) <= interfaceMtu + 18) {
                return p;
            }
        }
        throw new IllegalArgumentException("mtu: interface MTU " + interfaceMtu + " cannot carry a 256-byte RDMA payload in "
                + kind.cliName() + " framing");
    }

    /**
     * The frame a packet of {@code opcode} with {@code payloadLength} bytes makes on this link (with its VLAN tag), or
     * -1 when the framing cannot carry the opcode or the frame would exceed {@code maxLength} (counted: a link drops
     * such a packet, like a NIC would).
     */
    public int fit(int opcode, int payloadLength, int maxLength) {
        if (!framing.canCarry(opcode)) {
            counters.txUnencodable++;
            return -1;
        }
        int len = framing.frameLength(opcode, payloadLength);
        if (len > maxLength) {
            counters.txTooLong++;
            return -1;
        }
        return len;
    }

    /** Positions the engine's writer in a TX slot at {@code buf[offset..]}. */
    public TxPacket begin(MutableDirectBuffer buf, int offset) {
        return framing.begin(buf, offset);
    }

    /** Frames the packet written through {@code t}; counts it and records it in the capture. Returns the frame length. */
    public int end(TxPacket t, Route route, long now) {
        int len = framing.end(t, route);
        if (cbfc != null) cbfc.spent(priority(route));
        counters.txFrames++;
        counters.txBytes += len;
        if (capture != null) record(now, t.buffer(), t.frameOffset(), len);
        return len;
    }

    /** Counts and records a control frame (ARP) that went out. */
    void sentRaw(DirectBuffer buf, int offset, int len, long now) {
        if (capture != null) record(now, buf, offset, len);
    }

    /**
     * Sorts one received frame. {@code strippedTci} is the 802.1Q TCI the kernel took out of the data (-1 if it
     * did not). Returns true when a packet went to {@code sink}.
     */
    public boolean onFrame(DirectBuffer b, int offset, int length, int wireLength, int strippedTci, long now, PacketSink sink) {
        if (wireLength > length) {
            counters.rxTruncated++;
            counters.rxMalformed++;
            return false;
        }
        if (length < 14) {
            counters.rxMalformed++;
            return false;
        }
        if (capture != null) record(now, b, offset, length);
        int arpBody = ArpFrame.bodyOffset(b, offset, length);
        if (arpBody >= 0) {
            counters.rxArp++;
            arp.onArp(b, arpBody, now);
            return false;
        }
        long dst = mac48(b, offset);
        if (EthernetHeader.type(b, offset) == EthernetHeader.TYPE_MAC_CONTROL) {
            onMacControl(b, offset, length, dst, now);
            return false;
        }
        if (classifier.classify(b, offset, length).framing() != kind) {
            counters.rxIgnored++; // kernel traffic on the same interface (TCP, ND), other formats, PFC
            return false;
        }
        if (dst != mac && !multicast.contains(dst)) {
            counters.rxNotForUs++;
            return false;
        }
        int tci = strippedTci >= 0 ? strippedTci : dataTci(b, offset, length);
        RxPacket p = framing.decode(b, offset, length);
        int vc = tci >= 0 ? (tci >>> 13) & 7 : config.pcp();
        if (p == null) {
            counters.rxMalformed++;
            sink.onMalformed(framing.lastError(), now);
            if (cbfc != null) cbfc.freed(vc, now); // its slot is free again all the same
            return false;
        }
        if (p.opcode() == Opcode.PAXI_CBFC_CREDIT) {
            if (cbfc != null) cbfc.onCredits(p);
            else counters.rxIgnored++; // a PFC link: not ours to obey
            return false;
        }
        if (tci >= 0) {
            int pcp = (tci >>> 13) & 7;
            counters.rxByPcp[pcp]++;
            counters.lastRxPcp = pcp;
        }
        counters.rxFrames++;
        counters.rxBytes += length;
        if (cbfc != null) learnPeer(p, vc);
        sink.onPacket(p, now);
        if (cbfc != null) cbfc.freed(vc, now); // the engine is done with the frame: its RX slot is free
        return true;
    }

    /** PFC pauses the priorities it names, PAUSE all of them (to our MAC or the reserved multicast), in PFC mode. */
    private void onMacControl(DirectBuffer b, int offset, int length, long dst, long now) {
        counters.rxMacControl++;
        if (config.flowControl() != FlowControl.PFC || (dst != MacControlFrame.DST_MAC && dst != mac)) {
            counters.rxIgnored++;
            return;
        }
        if (MacControlFrame.isPfc(b, offset, length)) {
            int enabled = MacControlFrame.classEnable(b, offset);
            for (int p = 0; p < MacControlFrame.PRIORITIES; p++) {
                if ((enabled & (1 << p)) != 0) pause.onPause(1 << p, MacControlFrame.pfcQuanta(b, offset, p), now);
            }
        } else if (MacControlFrame.isPause(b, offset, length)) {
            pause.onPause(0xFF, MacControlFrame.pauseQuanta(b, offset), now);
        } else {
            counters.rxIgnored++; // another MAC Control opcode, or too short
        }
    }

    /** Credit frames go back to whoever sends us data (read before the engine is handed the packet). */
    private void learnPeer(RxPacket p, int vc) {
        long m = p.srcMac();
        if (m == peerMac) return;
        peerMac = m;
        for (int i = 0; i < 6; i++) peerMacBytes[i] = (byte) (m >>> (40 - 8 * i));
        long hi = p.srcGidHi(), lo = p.srcGidLo();
        for (int i = 0; i < 8; i++) {
            peerGidBytes[i] = (byte) (hi >>> (56 - 8 * i));
            peerGidBytes[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        peer.set(peerMacBytes, peerGidBytes).trafficClass(vc << 5);
    }

    private void record(long now, DirectBuffer b, int offset, int length) {
        try {
            capture.write(now + captureClockOffset, b, offset, length);
        } catch (RuntimeException e) {
            counters.captureErrors++;
            capture = null; // a full disk must not stop the data path
        }
    }

    private static int dataTci(DirectBuffer b, int offset, int length) {
        if (length < 18) return -1;
        int type = ((b.getByte(offset + 12) & 0xFF) << 8) | (b.getByte(offset + 13) & 0xFF);
        return type == TPID ? ((b.getByte(offset + 14) & 0xFF) << 8) | (b.getByte(offset + 15) & 0xFF) : -1;
    }

    /** Accepts frames to group MAC {@code m} too (a QP attached to its group). */
    public void joinMulticast(long m) {
        multicast.add(m);
    }

    public void leaveMulticast(long m) {
        multicast.remove(m);
    }

    private static long mac48(DirectBuffer b, int i) {
        long v = 0;
        for (int k = 0; k < 6; k++) v = (v << 8) | (b.getByte(i + k) & 0xFF);
        return v;
    }

    /** Flushes and closes the capture (control path). */
    public void closeCapture() {
        PcapWriter w = capture;
        capture = null;
        if (w != null) {
            try {
                w.close();
            } catch (IOException e) {
                counters.captureErrors++;
            }
        }
    }
}
