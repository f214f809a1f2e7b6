package org.urdma.transport.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.IsalCrc32;

/**
 * Invariant CRC (WIRE.md §6), without copying the frame: either in place (variant fields and the 8 bytes before
 * the network header briefly set to 1s, one CRC pass, then restored) or through a small scratch buffer holding
 * the masked prefix (8 x 0xFF, the network and UDP headers and the BTH, under 100 bytes) followed by the rest of
 * the frame straight from its memory.
 * <p>
 * Off-heap frames (ring slots, direct buffers) go through ISA-L's CRC-32 when {@link IsalCrc32} has it: about
 * 4x faster than {@link CRC32} on short frames, and then every frame is done in place when allowed. Frames on the
 * heap, or all frames without ISA-L, use {@link CRC32}: an array range, or for off-heap frames a cached
 * {@link ByteBuffer} view of the 1 GiB window around the frame's address.
 * The value is stored least significant byte first. One instance per thread.
 */
public final class Icrc {
    public static final int LENGTH = 4;

    /** Network header kinds for the masked prefix. */
    public static final int NET_NONE = 0;
    public static final int NET_IPV4_UDP = 1;
    public static final int NET_IPV6_UDP = 2;
    public static final int NET_GRH = 3;

    /** CRC-32 of any message followed by its own CRC stored least significant byte first. */
    public static final int RESIDUE = 0x2144DF1C;

    private static final int IN_PLACE_MIN = 512;
    private static final long WINDOW = 1L << 30;
    /** Largest ByteBuffer view the JDK makes (its soft maximum array length), ~2 GiB: a window plus any frame. */
    private static final long WINDOW_VIEW = Integer.MAX_VALUE - 8;

    private static final int SCRATCH = 8 + Ipv6Header.LENGTH + UdpHeader.LENGTH + Bth.LENGTH + 16;
    /** ISA-L is loaded: off-heap runs use it. */
    private static final boolean ISAL = IsalCrc32.available();

    /** The stand-in for masked bytes, off-heap so either CRC takes it. */
    private static final UnsafeBuffer ONES = ones(IntStack.LENGTH);

    private final CRC32 crc = new CRC32();
    /** The masked prefix, off-heap so both CRCs can read it. */
    private final ByteBuffer scratchView = ByteBuffer.allocateDirect(SCRATCH);
    private final UnsafeBuffer scratch = new UnsafeBuffer(scratchView);
    /** The run in progress uses ISA-L, whose running value is {@link #isalValue}; else {@link #crc} holds it. */
    private boolean isalRun;
    private int isalValue;
    private long windowBase0 = -1;
    private long windowBase1 = -1;
    private ByteBuffer window0;
    private ByteBuffer window1;

    private final boolean inPlace;

    /** An ICRC engine that works in place on writable buffers (see {@link #Icrc(boolean)}). */
    public Icrc() {
        this(true);
    }

    /**
     * @param inPlace when true, {@link #compute} and {@link #verify} on a {@link MutableDirectBuffer} use
     *                {@link #computeInPlace} for frames of 512 bytes and more (one CRC pass, about 10 % faster
     *                on 4 KiB frames): the frame is briefly written and restored, so it must not be read by other
     *                threads meanwhile nor be read-only memory. When false they never write to the frame.
     */
    public Icrc(final boolean inPlace) {
        this.inPlace = inPlace;
        scratch.putLong(0, -1L);    // the LRH stand-in never changes
    }

    /**
     * CRC over the frame section from the network header at {@code netOffset} (or the RH/BTH when
     * {@code net == NET_NONE}) to {@code end} (exclusive; the ICRC itself starts at {@code end}).
     *
     * @param bth true when the transport header is a BTH (its byte 4 is masked); false for a PAXI RH (unmasked).
     */
    public int compute(final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end) {
        // in place pays off on long frames (one bulk CRC run); with CRC32 short ones are mostly header and gain
        // nothing, with ISA-L one call instead of two saves ~10 ns at any size
        if (inPlace && (end - netOffset >= IN_PLACE_MIN || isal(b)) && netOffset >= 8 &&
            b instanceof MutableDirectBuffer m) {
            return computeInPlace(m, netOffset, net, bth, end);
        }
        return computeCopying(b, netOffset, net, bth, end);
    }

    /** {@link #compute} through a copied, masked header prefix; never writes to {@code b}. */
    public int computeCopying(
        final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end) {
        final int covered = netOffset + prefixLength(net, bth);
        // take up to 15 more bytes into the prefix so the bulk run starts 16-byte aligned (CRC32's intrinsic
        // handles an unaligned head byte by byte)
        final int extra = Math.min((int)(-(b.addressOffset() + covered) & 15), end - covered);
        prefix(b, netOffset, net, bth, extra);
        update(b, covered + extra, end - covered - extra);
        return value();
    }

    /**
     * True when the 4-byte ICRC stored at {@code end} matches. Runs the CRC over the ICRC too and compares with
     * CRC-32's residue constant, so the bulk run ends where the frame does, as a plain CRC of the frame would
     * (CRC32's intrinsic handles the last bytes of a run one at a time).
     */
    public boolean verify(final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end) {
        return compute(b, netOffset, net, bth, end + LENGTH) == RESIDUE;
    }

    /**
     * Same value as {@link #compute}, in one pass over a frame the caller owns (the encoder's own output): the
     * variant fields and the 8 bytes before the network header (part of the link header) are set to 1s in place,
     * the CRC runs once over {@code [netOffset - 8, end)}, then the saved bytes are put back. Needs 8 bytes before
     * {@code netOffset}, which every framing's link header provides. Not for frames other threads may be reading.
     */
    public int computeInPlace(
        final MutableDirectBuffer b, final int netOffset, final int net, final boolean bth, final int end) {
        final int lrh = netOffset - 8;
        final long savedLink = b.getLong(lrh);
        final int t;
        long savedNet = 0;
        int savedUdp = 0;
        switch (net) {
            case NET_IPV4_UDP -> {
                savedNet = b.getLong(netOffset + 4);                    // id, flags, TTL, proto, checksum
                final int tos = b.getByte(netOffset + 1);
                savedUdp = b.getShort(netOffset + 26) & 0xFFFF | (tos & 0xFF) << 16;
                b.putByte(netOffset + 1, (byte)0xFF);
                b.putByte(netOffset + 8, (byte)0xFF);
                b.putShort(netOffset + 10, (short)0xFFFF);
                b.putShort(netOffset + 26, (short)0xFFFF);
                t = netOffset + Ipv4Header.LENGTH + UdpHeader.LENGTH;
            }
            case NET_IPV6_UDP, NET_GRH -> {
                savedNet = b.getLong(netOffset);                        // version..flow label, length, next, hop
                b.putByte(netOffset, (byte)(b.getByte(netOffset) | 0x0F));
                b.putByte(netOffset + 1, (byte)0xFF);
                b.putShort(netOffset + 2, (short)0xFFFF);
                b.putByte(netOffset + 7, (byte)0xFF);
                t = netOffset + Ipv6Header.LENGTH + (net == NET_IPV6_UDP ? UdpHeader.LENGTH : 0);
                if (net == NET_IPV6_UDP) {
                    savedUdp = b.getShort(t - 2) & 0xFFFF;
                    b.putShort(t - 2, (short)0xFFFF);
                }
            }
            default -> t = netOffset;
        }
        final byte savedBth4 = bth ? b.getByte(t + 4) : 0;
        if (bth) {
            b.putByte(t + 4, (byte)0xFF);
        }
        b.putLong(lrh, -1L);
        begin(isal(b));
        update(b, lrh, end - lrh);
        b.putLong(lrh, savedLink);
        if (bth) {
            b.putByte(t + 4, savedBth4);
        }
        switch (net) {
            case NET_IPV4_UDP -> {
                b.putLong(netOffset + 4, savedNet);
                b.putByte(netOffset + 1, (byte)(savedUdp >>> 16));
                b.putShort(netOffset + 26, (short)savedUdp);
            }
            case NET_IPV6_UDP, NET_GRH -> {
                b.putLong(netOffset, savedNet);
                if (net == NET_IPV6_UDP) {
                    b.putShort(t - 2, (short)savedUdp);
                }
            }
            default -> {
            }
        }
        return value();
    }

    /**
     * As {@link #computeCopying} with the last {@code masked} bytes before {@code end} read as ones: an INT stack
     * ({@link IntStack}), which switches rewrite on the way as they do the IP header's variant fields.
     */
    public int computeMaskedTail(
        final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end, final int masked) {
        final int covered = start(b, netOffset, net, bth);
        update(b, covered, end - masked - covered);
        update(ONES, 0, masked);
        return value();
    }

    /**
     * Starts an incremental computation: feeds the masked prefix and returns the offset in the frame where the
     * unmasked part begins; continue with {@link #update} and read {@link #value()}.
     */
    public int start(final DirectBuffer b, final int netOffset, final int net, final boolean bth) {
        prefix(b, netOffset, net, bth, 0);
        return netOffset + prefixLength(net, bth);
    }

    /** Resets the CRC and feeds 8 x 0xFF, the masked headers and {@code extra} unmasked bytes after them. */
    private void prefix(final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int extra) {
        final int len = prefixLength(net, bth);
        // copy by longs: cheaper than getBytes for these few dozen bytes
        final UnsafeBuffer sb = scratch;
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            sb.putLong(8 + i, b.getLong(netOffset + i));
        }
        if (i < len) {
            sb.putInt(8 + i, b.getInt(netOffset + i));     // every prefix length is a multiple of 4
            i += 4;
        }
        final int total = len + extra;
        for (; i + 4 <= total; i += 4) {
            sb.putInt(8 + i, b.getInt(netOffset + i));
        }
        for (; i < total; i++) {
            sb.putByte(8 + i, b.getByte(netOffset + i));
        }
        int t = 8;
        switch (net) {
            case NET_IPV4_UDP -> {
                sb.putByte(t + 1, (byte)0xFF);          // TOS
                sb.putByte(t + 8, (byte)0xFF);          // TTL
                sb.putByte(t + 10, (byte)0xFF);         // header checksum
                sb.putByte(t + 11, (byte)0xFF);
                sb.putByte(t + 26, (byte)0xFF);         // UDP checksum
                sb.putByte(t + 27, (byte)0xFF);
                t += Ipv4Header.LENGTH + UdpHeader.LENGTH;
            }
            case NET_IPV6_UDP, NET_GRH -> {
                sb.putByte(t, (byte)(sb.getByte(t) | 0x0F));     // traffic class and flow label (version kept)
                sb.putByte(t + 1, (byte)0xFF);
                sb.putByte(t + 2, (byte)0xFF);
                sb.putByte(t + 3, (byte)0xFF);
                sb.putByte(t + 7, (byte)0xFF);          // hop limit
                t += Ipv6Header.LENGTH;
                if (net == NET_IPV6_UDP) {
                    sb.putByte(t + 6, (byte)0xFF);
                    sb.putByte(t + 7, (byte)0xFF);
                    t += UdpHeader.LENGTH;
                }
            }
            default -> {
            }
        }
        if (bth) {
            sb.putByte(t + 4, (byte)0xFF);              // FECN, BECN, resv6
        }
        begin(isal(b));
        final int n = 8 + len + extra;
        if (isalRun) {
            isalValue = IsalCrc32.update(0, sb.addressOffset(), n);
        } else {
            scratchView.clear().limit(n);
            crc.update(scratchView);
        }
    }

    /** True when frames in {@code b} go through ISA-L: it is loaded and the bytes are off-heap. */
    private static boolean isal(final DirectBuffer b) {
        return ISAL && b.byteArray() == null;
    }

    private void begin(final boolean withIsal) {
        isalRun = withIsal;
        if (withIsal) {
            isalValue = 0;
        } else {
            crc.reset();
        }
    }

    /** Feeds {@code b[index, index + length)} without copying. */
    public void update(final DirectBuffer b, final int index, final int length) {
        if (length <= 0) {
            return;
        }
        final byte[] array = b.byteArray();
        if (isalRun) {
            if (array != null) {
                throw new IllegalStateException("ICRC run started on off-heap memory continued on a heap array");
            }
            isalValue = IsalCrc32.update(isalValue, b.addressOffset() + index, length);
            return;
        }
        if (array != null) {
            crc.update(array, b.wrapAdjustment() + index, length);
            return;
        }
        // off-heap (direct ByteBuffer, raw address such as a ring slot): a cached ByteBuffer view over the 1 GiB
        // aligned window holding the bytes, so re-wrapped slots and slices cost no allocation
        final long address = b.addressOffset() + index;
        final long base = address & ~(WINDOW - 1);
        final ByteBuffer v = window(base);
        final int position = (int)(address - base);
        v.clear();
        v.position(position);
        v.limit(position + length);
        crc.update(v);
    }

    /** View of {@code [base, base + 2 GiB)}; two kept, for frames on both sides of a window boundary. */
    @SuppressWarnings("restricted")
    private ByteBuffer window(final long base) {
        if (base == windowBase0) {
            return window0;
        }
        if (base != windowBase1) {
            windowBase1 = base;
            window1 = MemorySegment.ofAddress(base).reinterpret(WINDOW_VIEW).asByteBuffer();
        }
        // most recent first
        final long b = windowBase0;
        final ByteBuffer w = window0;
        windowBase0 = windowBase1;
        window0 = window1;
        windowBase1 = b;
        window1 = w;
        return window0;
    }

    private static UnsafeBuffer ones(final int n) {
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(n));
        b.setMemory(0, n, (byte)0xFF);
        return b;
    }

    /** Current CRC value (as {@link CRC32#getValue()}, truncated to int). */
    public int value() {
        return isalRun ? isalValue : (int)crc.getValue();
    }

    /** Which CRC-32 serves off-heap frames, for benchmark headers: ISA-L or why not. */
    public static String implementation() {
        return ISAL ? IsalCrc32.status() : "java.util.zip.CRC32 (ISA-L " + IsalCrc32.status() + ")";
    }

    /** Length of the masked prefix taken from the frame (network + UDP headers, plus the BTH when masked). */
    public static int prefixLength(final int net, final boolean bth) {
        final int n = switch (net) {
            case NET_IPV4_UDP -> Ipv4Header.LENGTH + UdpHeader.LENGTH;
            case NET_IPV6_UDP -> Ipv6Header.LENGTH + UdpHeader.LENGTH;
            case NET_GRH -> Ipv6Header.LENGTH;
            default -> 0;
        };
        return n + (bth ? Bth.LENGTH : 0);
    }

    /** Writes the ICRC least significant byte first (WIRE.md §6). */
    public static void put(final MutableDirectBuffer b, final int index, final int icrc) {
        b.putInt(index, icrc, ByteOrder.LITTLE_ENDIAN);
    }

    public static int get(final DirectBuffer b, final int index) {
        return b.getInt(index, ByteOrder.LITTLE_ENDIAN);
    }
}
