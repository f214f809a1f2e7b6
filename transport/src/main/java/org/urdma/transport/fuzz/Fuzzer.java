package org.urdma.transport.fuzz;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.cm.WanOffer;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * Fuzzes a live RC, UC and UD QP pair on the in-memory link under a virtual clock: legitimate traffic flows both ways
 * (WRITE, SEND, READ, atomics, WRITE with immediate; SENDs back), the frames the engines send are harvested from the
 * link, mutated with a {@link FrameMutator} and injected from a foreign host in the same direction. The oracle:
 * <ul>
 * <li>every received frame has exactly one outcome (a framing reason, a device drop counter, or processed) and an
 *     injected frame's framing outcome is the one a reference decoder predicted; the counters add up at the end;</li>
 * <li>no exception escapes the engine;</li>
 * <li>memory outside the regions the traffic exposes (source buffers, a region whose R_Key never leaves the host, a
 *     region without remote rights, a region of another PD, unregistered bytes around them) equals its shadow copy;</li>
 * <li>a QP leaves RTS only as the spec says: a responder after the class-C NAK it sent, a requester on a NAK, a bad
 *     response or its retries spent, and only because of forged input. Those are expected events, counted by name
 *     (known engine gaps are named as such); anything else fails.</li>
 * </ul>
 * Deterministic for a seed; no clocks, threads or sleeps.
 */
public final class Fuzzer implements AutoCloseable, AccountingLink.Judge {
    /**
     * A forged RC/UC packet with another link source (MAC) but the peer's network address was taken: rxe's check_addr,
     * which the engine follows, compares the IP/GID source only (frames from another address are dropped and counted).
     */
    public static final String FOREIGN_MAC_PEER_ADDRESS =
        "RC/UC packet from another MAC with the peer's IP/GID: taken, as rxe's check_addr compares addresses only";
    static final long START = 1_000_000_000L;
    private static final long LEGIT = -1;
    private static final int KB = 1024;
    private static final int RING = 1024;
    private static final int POOL = 64;
    /** Injected frames per round, then the engines run {@link #STEP_NANOS}. */
    private static final int BATCH = 32;
    private static final long STEP_NANOS = 20_000;

    private final FramingKind kind;
    private final long seed;
    private final SplittableRandom random;
    private final Arena arena = Arena.ofShared();
    private final MemoryLink linkA, linkB;
    /** What device A receives (from B) and what device B receives (from A). */
    private final AccountingLink rxA, rxB;
    private final SoftDevice a, b;
    private final SimulatedDriver sim;
    private final int slotSize;
    private final FrameMutator mutator;
    private final Targets targets = new Targets();
    private final Framing reference;
    private final Framing nakDecoder;
    private final Packet refPacket = new Packet();
    private final Packet nakPacket = new Packet();

    // memory: checked ranges must equal their shadow; exposed ones are written by traffic (or by forged valid writes)
    private final MemorySegment memA, memB;
    private final byte[] shadowA, shadowB;
    private final long[][] uncheckedA = {{64 * KB, 160 * KB}};
    private final long[][] uncheckedB = {{64 * KB, 192 * KB}};
    private final ProtectionDomain pdA, pdB, pdOther;
    private MemoryRegion srcA, sinkA, recvA, exposedB, recvB;
    private final MemoryRegion secretB, noRightsB, otherPdB;
    private AddressHandle ahToB;

    // QPs
    private final Pair[] pairs;
    private final Int2ObjectHashMap<Side> qpsA = new Int2ObjectHashMap<>(), qpsB = new Int2ObjectHashMap<>();
    private final WorkCompletion[] wcs = new WorkCompletion[64];

    // harvest pools (A→B, B→A) and injected frames (for reports)
    private final UnsafeBuffer poolAB, poolBA, injected;
    private final int[] poolLenAB = new int[POOL], poolLenBA = new int[POOL];
    private int poolCountAB, poolCountBA;
    private final int[] injectedLen = new int[RING];
    private final byte[] injectedMutation = new byte[RING];
    private final byte[] injectedPrediction = new byte[RING];
    private boolean injecting;
    private long injectSeq;

    // per-frame judging
    private Side current;
    private QpState stateBefore;
    /** A WAN responder's expected PSN before the frame: only a request there may end the connection. */
    private int expectedBefore = -1;
    private long currentTag = LEGIT;
    private boolean watchNaks;
    private int nakPsn = -1, nakCode;

    // results
    private final long[] injectedOutcomes = new long[Outcome.values().length];
    private final long[] legitOutcomes = new long[Outcome.values().length];
    private final long[][] byMutation = new long[Mutation.values().length][Outcome.values().length];
    private final Map<String, Long> events = new LinkedHashMap<>();
    private long reconnects;
    private long rounds;

    public Fuzzer(FramingKind kind, long seed) {
        if (kind == FramingKind.PAXI_LITE) throw new IllegalArgumentException("framing: paxi-lite carries no RC/UC/UD traffic to fuzz");
        this.kind = kind;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        DeviceConfig ca = DeviceConfig.named("fuzz-a", 1), cb = DeviceConfig.named("fuzz-b", 2);
        MemoryLink.Config lc = MemoryLink.Config.defaults().withSlots(RING);
        LinkFraming fa = new LinkFraming(kind, ca.mac(), ca.gid().toBytes());
        LinkFraming fb = new LinkFraming(kind, cb.mac(), cb.gid().toBytes());
        MemoryLink[] ends = MemoryLink.pair(lc, fa, fb, ImpairmentConfig.none(), ImpairmentConfig.none());
        linkA = ends[0];
        linkB = ends[1];
        slotSize = (Math.max(fa.maxFrameLength(lc.maxPayload()), fb.maxFrameLength(lc.maxPayload())) + 63) & ~63;
        rxA = new AccountingLink(linkA, this);
        rxB = new AccountingLink(linkB, this);
        a = new SoftDevice(ca, rxA, random.split(), START);
        b = new SoftDevice(cb, rxB, random.split(), START);
        rxA.bind(a);
        rxB.bind(b);
        sim = new SimulatedDriver(START, a, b);
        mutator = new FrameMutator(kind, true, random.split(), targets);
        reference = Framings.of(kind, true, false);
        nakDecoder = Framings.of(kind, true, false);
        poolAB = new UnsafeBuffer(ByteBuffer.allocateDirect(POOL * slotSize));
        poolBA = new UnsafeBuffer(ByteBuffer.allocateDirect(POOL * slotSize));
        injected = new UnsafeBuffer(ByteBuffer.allocateDirect(RING * slotSize));
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        linkA.tap((f, off, len, now) -> sent(rxB, poolAB, poolLenAB, true, f, off, len));
        linkB.tap((f, off, len, now) -> sent(rxA, poolBA, poolLenBA, false, f, off, len));

        memA = arena.allocate(256 * KB, 64);
        memB = arena.allocate(512 * KB, 64);
        SplittableRandom fill = new SplittableRandom(seed ^ 0x5EED);
        for (long i = 0; i < memA.byteSize(); i++) memA.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) fill.nextInt());
        for (long i = 0; i < memB.byteSize(); i++) memB.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) fill.nextInt());
        shadowA = memA.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        shadowB = memB.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        pdA = a.allocPd();
        pdB = b.allocPd();
        pdOther = b.allocPd();
        srcA = pdA.registerMemory(memA.asSlice(0, 64 * KB), AccessFlags.LOCAL_WRITE);
        sinkA = pdA.registerMemory(memA.asSlice(64 * KB, 64 * KB), AccessFlags.LOCAL_WRITE);
        recvA = pdA.registerMemory(memA.asSlice(128 * KB, 32 * KB), AccessFlags.LOCAL_WRITE);
        exposedB = pdB.registerMemory(memB.asSlice(64 * KB, 64 * KB), AccessFlags.ALL);
        recvB = pdB.registerMemory(memB.asSlice(128 * KB, 64 * KB), AccessFlags.LOCAL_WRITE);
        secretB = pdB.registerMemory(memB.asSlice(192 * KB, 64 * KB), AccessFlags.ALL); // its R_Key never leaves B
        noRightsB = pdB.registerMemory(memB.asSlice(256 * KB, 64 * KB), AccessFlags.LOCAL_WRITE);
        otherPdB = pdOther.registerMemory(memB.asSlice(320 * KB, 64 * KB), AccessFlags.ALL);
        ahToB = pdA.createAh(new AddressHandleAttributes().dgid(b.gid(0)).dmac(b.mac()));
        QpType[] types = {QpType.RC, QpType.UC, QpType.UD};
        // and an RC pair in WAN mode (SACK, per-packet RETH, FEC parity, timestamps) where the BTH carries the UETH
        pairs = new Pair[types.length + (kind.usesBth() ? 1 : 0)];
        for (int i = 0; i < pairs.length; i++) {
            pairs[i] = new Pair(i < types.length ? types[i] : QpType.RC, i >= types.length, a.createCq(512, null), b.createCq(512, null));
            connect(pairs[i]);
        }
        updateTargets();
    }

    // ---------------------------------------------------------------- the loop

    /** Injects {@code frames} mutated frames (or fewer when {@code keepGoing} turns false); throws {@link OracleFailure}. */
    public Report run(long frames, BooleanSupplier keepGoing) {
        while (injectSeq < frames && keepGoing.getAsBoolean()) {
            service();
            for (int i = 0; i < BATCH && injectSeq < frames; i++) {
                if (!injectOne()) break;
            }
            try {
                sim.runFor(STEP_NANOS);
            } catch (OracleFailure f) {
                throw new OracleFailure(f.getMessage() + context(), f);
            } catch (RuntimeException | StackOverflowError e) {
                throw new OracleFailure("an exception escaped the engine: " + e + context(), e);
            }
            if ((++rounds & 255) == 0) checkMemory();
        }
        // let what is in flight arrive, then check everything
        sim.runFor(2 * STEP_NANOS);
        service();
        checkMemory();
        checkTotals();
        return report();
    }

    private boolean injectOne() {
        boolean toB = random.nextInt(100) < 70;
        int count = toB ? poolCountAB : poolCountBA;
        if (count == 0) {
            toB = !toB;
            count = toB ? poolCountAB : poolCountBA;
            if (count == 0) return false;
        }
        int i = random.nextInt(Math.min(count, POOL));
        UnsafeBuffer pool = toB ? poolAB : poolBA;
        int len = (toB ? poolLenAB : poolLenBA)[i];
        int slot = (int) (injectSeq & (RING - 1));
        int at = slot * slotSize;
        int out = mutator.mutate(pool, i * slotSize, len, injected, at, slotSize);
        // what the receiving framing must say, from a decoder of our own (one that never writes the frame)
        DecodeStatus predicted = reference.decode(injected, at, out, refPacket);
        injectedLen[slot] = out;
        injectedMutation[slot] = (byte) mutator.last().ordinal();
        injectedPrediction[slot] = (byte) predicted.ordinal();
        injecting = true;
        boolean sent;
        try {
            sent = (toB ? linkA : linkB).inject(injected, at, out, sim.now());
        } finally {
            injecting = false;
        }
        if (!sent) return false; // ring full: the engines catch up first
        injectSeq++;
        return true;
    }

    /** A link end sent a frame: tag it for the receiver, keep legitimate ones to mutate, watch for NAKs. */
    private void sent(AccountingLink receiver, UnsafeBuffer pool, int[] lens, boolean ab, DirectBuffer f, int off, int len) {
        receiver.pushTag(injecting ? injectSeq : LEGIT);
        if (injecting) return;
        int count = ab ? poolCountAB : poolCountBA;
        int i = count < POOL ? count : random.nextInt(POOL);
        pool.putBytes(i * slotSize, f, off, len);
        lens[i] = len;
        if (ab) poolCountAB++;
        else poolCountBA++;
        if (watchNaks && nakDecoder.decode(f, off, len, nakPacket) == DecodeStatus.OK
                && (nakPacket.opcode & 0x1F) == Opcode.ACKNOWLEDGE
                && (nakPacket.aethSyndrome & Aeth.SYNDROME_TYPE) == Aeth.SYNDROME_NAK) {
            nakPsn = nakPacket.psn;
            nakCode = nakPacket.aethSyndrome & 0x1F;
        }
    }

    // ---------------------------------------------------------------- oracle: one frame

    @Override
    public void before(AccountingLink at, long tag, RxPacket p) {
        currentTag = tag;
        current = (at == rxA ? qpsA : qpsB).get(p.destQp());
        stateBefore = current == null ? null : current.qp.state();
        expectedBefore = current != null && current.pair.wan ? ((SoftQp) current.qp).expectedPsn() : -1;
        nakPsn = -1;
        watchNaks = current != null && current.pair.type == QpType.RC;
    }

    @Override
    public void after(AccountingLink at, long tag, Outcome o, RxPacket p) {
        watchNaks = false;
        if (tag == LEGIT) {
            legitOutcomes[o.ordinal()]++;
            if (o.decodeDrop() || o == Outcome.BAD_PKEY) {
                throw new OracleFailure("a frame the engine sent was dropped as " + o);
            }
        } else {
            int slot = (int) (tag & (RING - 1));
            injectedOutcomes[o.ordinal()]++;
            byMutation[injectedMutation[slot]][o.ordinal()]++;
            DecodeStatus predicted = DecodeStatus.of(injectedPrediction[slot]);
            boolean agrees = o.decodeDrop() ? predicted != DecodeStatus.OK && Outcome.of(predicted) == o : predicted == DecodeStatus.OK;
            if (!agrees) {
                throw new OracleFailure("the link's framing said " + o + " where a reference decode said " + predicted);
            }
        }
        Side s = current;
        current = null;
        if (p == null || s == null) return;
        if (tag != LEGIT && o == Outcome.PROCESSED) {
            s.pair.tainted = true;
            if (s.pair.type != QpType.UD && foreignSource(p, s.onA ? b : a)) expect(FOREIGN_MAC_PEER_ADDRESS);
        }
        QpState after = s.qp.state();
        if (stateBefore == QpState.RTS && after != QpState.RTS) leftRts(s, tag, p, after);
        currentTag = LEGIT;
    }

    /** Whether the packet's link source is not the QP's peer (full MAC; AFH1 carries 40 bits of it, AFH2 a 16-bit id). */
    private boolean foreignSource(RxPacket p, SoftDevice peer) {
        long mac = 0;
        for (byte x : peer.config().mac()) mac = (mac << 8) | (x & 0xFF);
        return switch (kind) {
            case PAXI_AFH1 -> ((p.srcMac() ^ mac) & 0xFF_FFFF_FFFFL) != 0;
            case PAXI_AFH2 -> p.frame().srcXpu != (mac & 0xFFFF);
            default -> p.srcMac() != mac;
        };
    }

    /** A QP left RTS while taking {@code p}: allowed only where the spec says so. */
    private void leftRts(Side s, long tag, RxPacket p, QpState after) {
        Pair pair = s.pair;
        pair.judged = true;
        drain(pair);
        if (pair.type == QpType.UD) throw new OracleFailure("a UD QP left RTS (" + after + ") on a received frame");
        if (tag == LEGIT) {
            if (pair.tainted) expect(pair.type + ": legitimate traffic after forged input the QP accepted ends the connection");
            else if (regionInvalidated()) expect("a forged SEND with invalidate revoked a region the traffic uses");
            else throw new OracleFailure(pair.type + " QP " + s.qp.qpNum() + " left RTS on legitimate traffic (" + p + ")");
            return;
        }
        int op = p.opcode();
        boolean toCompleter = (op & 0xE0) == Opcode.TRANSPORT_RC && OpcodeTable.has(op, OpcodeTable.ACK);
        if (pair.type == QpType.UC) {
            expect("UC responder: local error on a forged request (" + Opcode.name(op & 0x1F) + ")");
            return;
        }
        if (!toCompleter) {
            if (nakPsn != p.psn()) {
                throw new OracleFailure("RC responder left RTS on " + p + " without the class-C NAK the spec requires");
            }
            if (pair.wan && p.psn() != expectedBefore) {
                throw new OracleFailure("WAN responder left RTS on a forged request at PSN " + p.psn() + ", expected "
                    + expectedBefore + ": a request ahead is dropped and counted, only the expected PSN is NAK'd");
            }
            expect((pair.wan ? "WAN " : "") + "RC responder: class-C NAK " + nakName(nakCode) + " for a forged "
                + Opcode.name(op & 0x1F));
            return;
        }
        WcStatus st = s.firstError;
        if ((op & 0x1F) == Opcode.ACKNOWLEDGE) {
            int syn = p.aethSyndrome();
            if ((syn & Aeth.SYNDROME_TYPE) == Aeth.SYNDROME_NAK && (syn & 0x1F) != Aeth.NAK_PSN_SEQUENCE_ERROR) {
                if (s.firstErrorPsn != -1 && Psn.before(p.psn(), s.firstErrorPsn)) {
                    throw new OracleFailure("a stale NAK failed an outstanding request: " + p);
                }
                expect("RC requester: NAK " + nakName(syn & 0x1F) + " fails the request (" + st + ")");
                return;
            }
            if (st == WcStatus.RETRY_EXC_ERR) {
                expect("RC requester: forged NAKs/ACKs spent retry_cnt (RETRY_EXC_ERR)");
                return;
            }
            throw new OracleFailure("RC requester left RTS (" + st + ") on a forged " + p + " with syndrome 0x" + Integer.toHexString(syn));
        }
        if (st == WcStatus.BAD_RESP_ERR || st == WcStatus.LOC_LEN_ERR || st == WcStatus.RETRY_EXC_ERR) {
            expect("RC requester: forged " + Opcode.name(op & 0x1F) + " ends the request with " + st);
            return;
        }
        throw new OracleFailure("RC requester left RTS (" + st + ") on a forged " + p);
    }

    private static String nakName(int code) {
        return switch (code) {
            case Aeth.NAK_PSN_SEQUENCE_ERROR -> "PSN sequence error";
            case Aeth.NAK_INVALID_REQUEST -> "invalid request";
            case Aeth.NAK_REMOTE_ACCESS_ERROR -> "remote access error";
            case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> "remote operational error";
            default -> "code " + code;
        };
    }

    private void expect(String event) {
        events.merge(event, 1L, Long::sum);
    }

    private boolean regionInvalidated() {
        return !srcA.isValid() || !sinkA.isValid() || !recvA.isValid() || !exposedB.isValid() || !recvB.isValid();
    }

    // ---------------------------------------------------------------- traffic and QPs

    /** Completions, reconnection of QPs that left RTS, regions revoked by forged invalidates, new work. */
    private void service() {
        if (regionInvalidated()) {
            expect("a forged SEND with invalidate revoked a region the traffic uses");
            reRegister();
        }
        for (Pair p : pairs) {
            drain(p);
            boolean down = p.a.qp.state() != QpState.RTS || p.b.qp.state() != QpState.RTS;
            if (down) {
                if (!p.judged) {
                    // left RTS outside a received frame: a timer (retries spent) or a local error
                    if (p.type == QpType.UD) throw new OracleFailure("a UD QP left RTS" + context());
                    if (!p.tainted) throw new OracleFailure(p.type + " QP pair left RTS with no forged input ("
                            + p.a.firstError + " / " + p.b.firstError + ")" + context());
                    expect(p.type + ": after forged input, retries or a local error end the connection ("
                            + (p.a.firstError != null ? p.a.firstError : p.b.firstError) + ")");
                }
                reconnect(p);
            }
            topUp(p);
        }
    }

    private void reRegister() {
        if (!srcA.isValid()) srcA = pdA.registerMemory(memA.asSlice(0, 64 * KB), AccessFlags.LOCAL_WRITE);
        if (!sinkA.isValid()) sinkA = pdA.registerMemory(memA.asSlice(64 * KB, 64 * KB), AccessFlags.LOCAL_WRITE);
        if (!recvA.isValid()) recvA = pdA.registerMemory(memA.asSlice(128 * KB, 32 * KB), AccessFlags.LOCAL_WRITE);
        if (!exposedB.isValid()) exposedB = pdB.registerMemory(memB.asSlice(64 * KB, 64 * KB), AccessFlags.ALL);
        if (!recvB.isValid()) recvB = pdB.registerMemory(memB.asSlice(128 * KB, 64 * KB), AccessFlags.LOCAL_WRITE);
        for (Pair p : pairs) p.tainted = true; // work posted with the old keys fails
        updateTargets();
    }

    private void connect(Pair p) {
        int depth = 64;
        QueuePair qa = pdA.createQp(MemoryFabric.init(p.type, p.cqA, depth));
        QueuePair qb = pdB.createQp(MemoryFabric.init(p.type, p.cqB, depth));
        if (p.wan) {
            WanOffer offer = new WanOffer(WanOffer.FULL.uethFlags(), "rrcc", 0, 8, 1);
            QpConnector.wan(qa, offer.agree(offer));
            QpConnector.wan(qb, offer.agree(offer));
        }
        // PSNs anywhere, and often just before the 2^24 wrap
        int psnA = random.nextBoolean() ? random.nextInt(1 << 24) : (1 << 24) - random.nextInt(1, 16);
        int psnB = random.nextInt(1 << 24);
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults();
        MemoryFabric.bringUp(qa, b, qb.qpNum(), psnB, psnA, c);
        MemoryFabric.bringUp(qb, a, qa.qpNum(), psnA, psnB, c);
        p.a = new Side(p, qa, p.cqA, psnA, true);
        p.b = new Side(p, qb, p.cqB, psnB, false);
        p.tainted = false;
        p.judged = false;
        qpsA.put(qa.qpNum(), p.a);
        qpsB.put(qb.qpNum(), p.b);
    }

    private void reconnect(Pair p) {
        drain(p);
        qpsA.remove(p.a.qp.qpNum());
        qpsB.remove(p.b.qp.qpNum());
        p.a.qp.close();
        p.b.qp.close();
        drain(p);
        connect(p);
        reconnects++;
        updateTargets();
    }

    private void drain(Pair p) {
        drain(p.a);
        drain(p.b);
    }

    private void drain(Side s) {
        int n;
        while ((n = s.cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion w = wcs[i];
                if (w.qpNum != s.qp.qpNum()) continue; // the QP this CQ served before a reconnect
                if (w.opcode == WcOpcode.RECV || w.opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
                    s.recvPosted--;
                } else {
                    s.sendOutstanding--;
                    if (w.status != WcStatus.SUCCESS && w.status != WcStatus.WR_FLUSH_ERR && s.firstError == null) {
                        s.firstError = w.status;
                        s.firstErrorPsn = s.psnOf(w.wrId);
                    }
                }
            }
        }
    }

    private void topUp(Pair p) {
        Side sa = p.a, sb = p.b;
        int recvAt = (int) (p.type.ordinal() * 16 * KB) % (int) recvB.length();
        while (sb.recvPosted < 16) {
            sb.qp.postRecv(new ReceiveWorkRequest().wrId(0).addSge(recvB, recvAt, 16 * KB));
            sb.recvPosted++;
        }
        if (p.type == QpType.RC) {
            while (sa.recvPosted < 16) {
                sa.qp.postRecv(new ReceiveWorkRequest().wrId(0).addSge(recvA, 0, 32 * KB));
                sa.recvPosted++;
            }
        } while (sa.sendOutstanding < 8) postFromA(p);
        if (p.type == QpType.RC) {
            while (sb.sendOutstanding < 2) {
                post(sb, new SendWorkRequest().opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                        .addSge(recvB, 48 * KB, 600), 600);
            }
        }
    }

    private void postFromA(Pair p) {
        Side s = p.a;
        long ex = exposedB.address();
        int k = (int) (s.posted % 5);
        SendWorkRequest wr = new SendWorkRequest().flags(SendFlags.SIGNALED);
        int len;
        if (p.type == QpType.UD) {
            len = 256;
            wr.opcode(WrOpcode.SEND).addSge(srcA, 0, len).ud(ahToB, p.b.qp.qpNum(), 0x11111111);
        } else if (p.type == QpType.UC) {
            len = k % 2 == 0 ? 1500 : 700;
            if (k % 2 == 0) wr.opcode(WrOpcode.RDMA_WRITE).addSge(srcA, 1024, len).remote(ex + 8 * KB, exposedB.rkey());
            else wr.opcode(WrOpcode.SEND).addSge(srcA, 4096, len);
        } else {
            switch (k) {
                case 0 -> { len = 2500; wr.opcode(WrOpcode.RDMA_WRITE).addSge(srcA, 0, len).remote(ex, exposedB.rkey()); }
                case 1 -> { len = 1500; wr.opcode(WrOpcode.SEND).addSge(srcA, 8192, len); }
                case 2 -> { len = 2048; wr.opcode(WrOpcode.RDMA_READ).addSge(sinkA, 0, len).remote(ex + 16 * KB, exposedB.rkey()); }
                case 3 -> { len = 8; wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).addSge(sinkA, 8192, 8).remote(ex + 32 * KB, exposedB.rkey()).atomic(1, 0); }
                default -> { len = 64; wr.opcode(WrOpcode.RDMA_WRITE_WITH_IMM).addSge(srcA, 256, len).remote(ex + 40 * KB, exposedB.rkey()).immData(7); }
            }
        }
        post(s, wr, len);
    }

    private void post(Side s, SendWorkRequest wr, int len) {
        int packets = wr.opcode().isAtomic() ? 1 : Math.max(1, (len + 1023) / 1024);
        wr.wrId(s.posted);
        s.firstPsn[(int) (s.posted & (s.firstPsn.length - 1))] = s.nextPsn;
        s.nextPsn = Psn.add(s.nextPsn, s.pair.type == QpType.UD ? 1 : packets);
        s.posted++;
        s.sendOutstanding++;
        s.qp.postSend(wr);
    }

    private void updateTargets() {
        List<Integer> q = new ArrayList<>();
        for (Pair p : pairs) {
            if (p == null) continue;
            q.add(p.a.qp.qpNum());
            q.add(p.b.qp.qpNum());
        }
        q.add(1);
        q.add(0xFFFFFF);
        targets.qpns = q.stream().mapToInt(Integer::intValue).toArray();
        // every key but the secret region's: an attacker may have seen them on the wire or guess them
        targets.rkeys = new int[] {exposedB.rkey(), exposedB.lkey(), noRightsB.rkey(), otherPdB.rkey(), recvB.rkey(),
            srcA.rkey(), sinkA.rkey(), 0, 0x12345678};
        long ex = exposedB.address();
        targets.vas = new long[] {ex, ex + exposedB.length() - 8, ex + exposedB.length(), ex - 8, secretB.address(),
            noRightsB.address(), otherPdB.address(), memB.address(), sinkA.address(), 0, Long.MAX_VALUE - 8};
    }

    // ---------------------------------------------------------------- oracle: memory and totals

    private void checkMemory() {
        check("A", memA, shadowA, uncheckedA);
        check("B", memB, shadowB, uncheckedB);
    }

    private void check(String host, MemorySegment mem, byte[] shadow, long[][] unchecked) {
        long from = 0;
        for (long[] u : unchecked) {
            compare(host, mem, shadow, from, u[0]);
            from = u[1];
        }
        compare(host, mem, shadow, from, mem.byteSize());
    }

    private void compare(String host, MemorySegment mem, byte[] shadow, long from, long to) {
        long m = mem.asSlice(from, to - from).mismatch(MemorySegment.ofArray(shadow).asSlice(from, to - from));
        if (m >= 0) {
            throw new OracleFailure("memory of host " + host + " changed at offset " + (from + m) + " (outside every exposed region)"
                + context());
        }
    }

    private void checkTotals() {
        long decodeDrops = 0;
        for (Outcome o : Outcome.values()) if (o.decodeDrop()) decodeDrops += rxA.outcomes(o) + rxB.outcomes(o);
        long framing = linkA.framing().decoder().counters().dropped() + linkB.framing().decoder().counters().dropped();
        long linkMalformed = linkA.framing().decodeErrors() + linkB.framing().decodeErrors();
        require(decodeDrops == framing && framing == linkMalformed,
            "framing drops: per frame " + decodeDrops + ", framing counters " + framing + ", link " + linkMalformed);
        require(rxA.outcomes(Outcome.BAD_PKEY) == a.stats().get(Counter.DROP_BAD_PKEY) && rxB.outcomes(Outcome.BAD_PKEY) == b.stats().get(Counter.DROP_BAD_PKEY), "bad P_Key counts");
        require(rxA.outcomes(Outcome.UNKNOWN_QP) == a.stats().get(Counter.DROP_UNKNOWN_QP) && rxB.outcomes(Outcome.UNKNOWN_QP) == b.stats().get(Counter.DROP_UNKNOWN_QP), "unknown QP counts");
        require(rxA.outcomes(Outcome.RX_DROPPED) == a.stats().qpDrops() && rxB.outcomes(Outcome.RX_DROPPED) == b.stats().qpDrops(), "rx dropped counts");
        long injectedTotal = 0;
        for (long v : injectedOutcomes) injectedTotal += v;
        require(injectedTotal == injectSeq, "frames injected " + injectSeq + " but " + injectedTotal + " had an outcome");
        long delivered = linkA.receivedFrames() + linkB.receivedFrames() + linkMalformed;
        long outcomes = 0;
        for (Outcome o : Outcome.values()) outcomes += rxA.outcomes(o) + rxB.outcomes(o);
        require(delivered == outcomes, "frames delivered " + delivered + " but outcomes " + outcomes);
    }

    private void require(boolean ok, String what) {
        if (!ok) throw new OracleFailure("counters disagree: " + what + " (seed " + seed + ")");
    }

    /** Seed, injected frame number, mutation and bytes of the frame being processed, for a report. */
    private String context() {
        StringBuilder sb = new StringBuilder(" (seed ").append(seed).append(", framing ").append(kind.cliName());
        long tag = currentTag;
        if (tag >= 0 && injectSeq - tag <= RING) {
            int slot = (int) (tag & (RING - 1));
            sb.append(", injected frame #").append(tag).append(", mutation ").append(Mutation.of(injectedMutation[slot]))
                .append(", bytes ");
            for (int i = 0; i < injectedLen[slot]; i++) sb.append(String.format("%02x", injected.getByte(slot * slotSize + i)));
        } else {
            sb.append(", while handling legitimate traffic or a timer");
        }
        return sb.append(')').toString();
    }

    // ---------------------------------------------------------------- results

    /** What a run did: frames injected and their fate by reason, per mutation, expected QP events by name. */
    public record Report(FramingKind framing, long seed, long injected, long legitimate, Map<Outcome, Long> injectedOutcomes,
                         Map<Outcome, Long> legitimateOutcomes, Map<Mutation, Long> mutations, Map<String, Long> events,
                         long reconnects, long virtualNanos) {
        /** Frames of the given outcome among the injected ones. */
        public long injected(Outcome o) {
            return injectedOutcomes.getOrDefault(o, 0L);
        }
    }

    public Report report() {
        Map<Outcome, Long> inj = new LinkedHashMap<>(), leg = new LinkedHashMap<>();
        long legit = 0;
        for (Outcome o : Outcome.values()) {
            if (injectedOutcomes[o.ordinal()] != 0) inj.put(o, injectedOutcomes[o.ordinal()]);
            if (legitOutcomes[o.ordinal()] != 0) leg.put(o, legitOutcomes[o.ordinal()]);
            legit += legitOutcomes[o.ordinal()];
        }
        Map<Mutation, Long> muts = new LinkedHashMap<>();
        for (Mutation m : Mutation.values()) {
            long n = 0;
            for (long v : byMutation[m.ordinal()]) n += v;
            if (n != 0) muts.put(m, n);
        }
        return new Report(kind, seed, injectSeq, legit, inj, leg, muts, new LinkedHashMap<>(events), reconnects,
            sim.now() - START);
    }

    /** A counter's total over both devices (every QP, closed ones too). */
    public long count(org.urdma.transport.counters.Counter c) {
        return a.counters().get(c) + b.counters().get(c);
    }

    /** Host B's memory (tests check that the shadow comparison sees a change). */
    MemorySegment memoryB() {
        return memB;
    }

    @Override
    public void close() {
        arena.close();
    }

    // ---------------------------------------------------------------- state

    private static final class Pair {
        final QpType type;
        /** An RC pair in WAN mode. */
        final boolean wan;
        final CompletionQueue cqA, cqB;
        Side a, b;
        /** A forged frame reached one of its QPs and was acted on since it connected. */
        boolean tainted;
        /** Its leaving RTS was already judged (on the frame that caused it). */
        boolean judged;

        Pair(QpType type, boolean wan, CompletionQueue cqA, CompletionQueue cqB) {
            this.type = type;
            this.wan = wan;
            this.cqA = cqA;
            this.cqB = cqB;
        }
    }

    private static final class Side {
        final Pair pair;
        final QueuePair qp;
        final CompletionQueue cq;
        final boolean onA;
        final int[] firstPsn = new int[128];
        int nextPsn;
        long posted;
        int sendOutstanding;
        int recvPosted;
        WcStatus firstError;
        int firstErrorPsn = -1;

        Side(Pair pair, QueuePair qp, CompletionQueue cq, int psn, boolean onA) {
            this.pair = pair;
            this.qp = qp;
            this.cq = cq;
            this.nextPsn = psn;
            this.onA = onA;
        }

        int psnOf(long wrId) {
            return wrId < posted && posted - wrId <= firstPsn.length ? firstPsn[(int) (wrId & (firstPsn.length - 1))] : -1;
        }
    }
}
