package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Shared parts of the framings: the Ethernet/802.1Q link header, fill to 60 bytes, counters and the ICRC engine. */
abstract class AbstractFraming implements Framing {
    protected final FramingKind kind;
    protected final boolean icrcEnabled;
    protected final DecodeCounters counters = new DecodeCounters();
    protected final Icrc icrc;
    private boolean icrcOffload;

    AbstractFraming(final FramingKind kind, final boolean icrcEnabled, final boolean inPlaceIcrc) {
        this.kind = kind;
        this.icrcEnabled = icrcEnabled;
        this.icrc = new Icrc(inPlaceIcrc);
    }

    /** Checks the ICRC stored at {@code end} (in place on writable frames unless the framing was built without). */
    protected final boolean icrcValid(
        final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end) {
        return icrcOffload || icrc.verify(b, netOffset, net, bth, end);
    }

    /** As {@link #icrcValid(DirectBuffer, int, int, boolean, int)} with the last {@code masked} bytes before {@code end} read as ones (an INT stack). */
    protected final boolean icrcValid(
        final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end, final int masked) {
        if (masked == 0) {
            return icrcValid(b, netOffset, net, bth, end);
        }
        return icrcOffload || icrc.computeMaskedTail(b, netOffset, net, bth, end, masked) == Icrc.get(b, end);
    }

    @Override
    public void icrcOffload(final boolean on) {
        icrcOffload = on && offloadable();
    }

    @Override
    public boolean icrcOffloaded() {
        return icrcOffload;
    }

    /** Whether this framing can leave the ICRC to an offload (not when it finds frame ends by the ICRC). */
    boolean offloadable() {
        return icrcEnabled;
    }

    @Override
    public final FramingKind kind() {
        return kind;
    }

    @Override
    public final DecodeCounters counters() {
        return counters;
    }

    @Override
    public final DecodeStatus decode(final DirectBuffer src, final int offset, final int length, final Packet out) {
        if (out.inPlace) {
            out.resetForInPlace();
        } else {
            out.reset();
        }
        out.framing = kind;
        out.frameLength = length;
        if (offset < 0 || length < 0 || (long)offset + length > src.capacity()) {
            return counters.record(DecodeStatus.TRUNCATED);
        }
        return counters.record(decodeFrame(src, offset, offset + length, out));
    }

    /** Decodes {@code src[start, end)}; bounds already checked against the buffer. */
    abstract DecodeStatus decodeFrame(DirectBuffer src, int start, int end, Packet out);

    @Override
    public int trailerMaxLength() {
        return 3 + (icrcEnabled ? Icrc.LENGTH : 0);
    }

    /** Link + network bytes before the BTH/RH. */
    abstract int linkAndNetworkLength(boolean vlan);

    @Override
    public int headerLength(final int opcode, final boolean vlan) {
        return linkAndNetworkLength(vlan) + (kind.usesBth() ? Bth.LENGTH : Rh.LENGTH) +
            OpcodeTable.extendedLength(OpcodeTable.mask(opcode), 0);
    }

    @Override
    public int maxFrameLength(final int payload) {
        return Math.max(EthernetHeader.MIN_FRAME,
            linkAndNetworkLength(true) + TransportCodec.maxSectionLength(payload) + trailerMaxLength());
    }

    /** Writes DA, SA, optional 802.1Q tag and EtherType; returns the position after the EtherType. */
    static int putEthernet(final Packet p, final MutableDirectBuffer b, final int o, final int etherType) {
        EthernetHeader.putMacs(b, o, p.dstMac, p.srcMac);
        int pos = o + 12;
        if (p.vlan) {
            pos = EthernetHeader.putVlan(b, pos, p.pcp, p.dei, p.vid);
        }
        Bytes.u16(b, pos, etherType);
        return pos + 2;
    }

    /**
     * Reads the optional 802.1Q tag after the 12 address bytes at {@code start} into {@code out} and returns the
     * offset of the EtherType, or -1 when the frame is too short.
     */
    static int readTag(final DirectBuffer b, final int start, final int end, final Packet out) {
        if (end - start < EthernetHeader.LENGTH) {
            return -1;
        }
        int t = start + 12;
        if (Bytes.u16(b, t) == EthernetHeader.TYPE_VLAN) {
            if (end - start < EthernetHeader.LENGTH + EthernetHeader.VLAN_TAG_LENGTH) {
                return -1;
            }
            final int tci = Bytes.u16(b, t + 2);
            out.vlan = true;
            out.pcp = EthernetHeader.pcp(tci);
            out.dei = EthernetHeader.dei(tci);
            out.vid = EthernetHeader.vid(tci);
            t += EthernetHeader.VLAN_TAG_LENGTH;
        }
        return t;
    }

    /**
     * Ends an encode: appends the ICRC over {@code [icrcFrom, end)} when this framing carries one, pads to the
     * minimum frame and records the length in {@code p}. Returns the frame length.
     */
    final int finish(
        final Packet p, final MutableDirectBuffer b, final int offset, final int icrcFrom, final int net,
        final boolean bth, final int end) {
        return finish(p, b, offset, icrcFrom, net, bth, end, 0);
    }

    /** As above with the last {@code masked} bytes before {@code end} covered as ones (an INT stack switches rewrite). */
    final int finish(
        final Packet p, final MutableDirectBuffer b, final int offset, final int icrcFrom, final int net,
        final boolean bth, final int end, final int masked) {
        int last = end;
        if (icrcEnabled) {
            final int value = icrcOffload ? 0 : masked == 0 ? icrc.computeInPlace(b, icrcFrom, net, bth, end)
                : icrc.computeMaskedTail(b, icrcFrom, net, bth, end, masked);
            Icrc.put(b, end, value);
            last += Icrc.LENGTH;
        }
        final int len = fill(b, offset, last);
        p.frameLength = len;
        return len;
    }

    static int fill(final MutableDirectBuffer b, final int start, final int end) {
        final int len = end - start;
        if (len < EthernetHeader.MIN_FRAME) {
            b.setMemory(end, EthernetHeader.MIN_FRAME - len, (byte)0);
            return EthernetHeader.MIN_FRAME;
        }
        return len;
    }
}
