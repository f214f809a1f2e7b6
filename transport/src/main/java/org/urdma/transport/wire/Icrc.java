package org.urdma.transport.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Invariant CRC (WIRE.md §6) with {@link CRC32}, without copying the frame: the masked prefix (8 x 0xFF, the
 * network and UDP headers and the BTH, at most 68 bytes) goes through a small scratch array with the variant
 * fields set to 1s; everything after it is fed straight from the frame's memory (array range, a cached
 * {@link ByteBuffer} view of the frame's direct buffer, or a cached view of its raw address).
 * The value is stored least significant byte first. One instance per thread.
 */
public final class Icrc
{
    public static final int LENGTH = 4;

    /** Network header kinds for the masked prefix. */
    public static final int NET_NONE = 0;
    public static final int NET_IPV4_UDP = 1;
    public static final int NET_IPV6_UDP = 2;
    public static final int NET_GRH = 3;

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[8 + Ipv6Header.LENGTH + UdpHeader.LENGTH + Bth.LENGTH];
    private ByteBuffer viewSource;
    private ByteBuffer view;
    private long rawAddress;
    private int rawCapacity;
    private ByteBuffer rawView;

    /**
     * CRC over the frame section from the network header at {@code netOffset} (or the RH/BTH when
     * {@code net == NET_NONE}) to {@code end} (exclusive; the ICRC itself starts at {@code end}).
     *
     * @param bth true when the transport header is a BTH (its byte 4 is masked); false for a PAXI RH (unmasked).
     */
    public int compute(final DirectBuffer b, final int netOffset, final int net, final boolean bth, final int end)
    {
        start(b, netOffset, net, bth);
        final int covered = netOffset + prefixLength(net, bth);
        update(b, covered, end - covered);
        return (int)crc.getValue();
    }

    /**
     * Starts an incremental computation: feeds the masked prefix and returns the offset in the frame where the
     * unmasked part begins; continue with {@link #update} and read {@link #value()}.
     */
    public int start(final DirectBuffer b, final int netOffset, final int net, final boolean bth)
    {
        final byte[] s = scratch;
        for (int i = 0; i < 8; i++)
        {
            s[i] = (byte)0xFF;
        }
        final int len = prefixLength(net, bth);
        b.getBytes(netOffset, s, 8, len);
        int t = 8;
        switch (net)
        {
            case NET_IPV4_UDP ->
            {
                s[t + 1] = (byte)0xFF;          // TOS
                s[t + 8] = (byte)0xFF;          // TTL
                s[t + 10] = (byte)0xFF;         // header checksum
                s[t + 11] = (byte)0xFF;
                s[t + 26] = (byte)0xFF;         // UDP checksum
                s[t + 27] = (byte)0xFF;
                t += Ipv4Header.LENGTH + UdpHeader.LENGTH;
            }
            case NET_IPV6_UDP, NET_GRH ->
            {
                s[t] = (byte)(s[t] | 0x0F);     // traffic class and flow label (version kept)
                s[t + 1] = (byte)0xFF;
                s[t + 2] = (byte)0xFF;
                s[t + 3] = (byte)0xFF;
                s[t + 7] = (byte)0xFF;          // hop limit
                t += Ipv6Header.LENGTH;
                if (net == NET_IPV6_UDP)
                {
                    s[t + 6] = (byte)0xFF;
                    s[t + 7] = (byte)0xFF;
                    t += UdpHeader.LENGTH;
                }
            }
            default ->
            {
            }
        }
        if (bth)
        {
            s[t + 4] = (byte)0xFF;              // FECN, BECN, resv6
        }
        crc.reset();
        crc.update(s, 0, 8 + len);
        return netOffset + len;
    }

    /** Feeds {@code b[index, index + length)} without copying. */
    public void update(final DirectBuffer b, final int index, final int length)
    {
        if (length <= 0)
        {
            return;
        }
        final byte[] array = b.byteArray();
        if (array != null)
        {
            crc.update(array, b.wrapAdjustment() + index, length);
            return;
        }
        final ByteBuffer v;
        final int base;
        final ByteBuffer bb = b.byteBuffer();
        if (bb != null)
        {
            if (bb != viewSource)
            {
                viewSource = bb;
                view = bb.duplicate();
            }
            v = view;
            base = b.wrapAdjustment();
        }
        else
        {
            final long address = b.addressOffset();
            final int capacity = b.capacity();
            if (rawView == null || address != rawAddress || capacity != rawCapacity)
            {
                rawView = MemorySegment.ofAddress(address).reinterpret(capacity).asByteBuffer();
                rawAddress = address;
                rawCapacity = capacity;
            }
            v = rawView;
            base = 0;
        }
        v.clear();
        v.position(base + index);
        v.limit(base + index + length);
        crc.update(v);
    }

    /** Current CRC value (as {@link CRC32#getValue()}, truncated to int). */
    public int value()
    {
        return (int)crc.getValue();
    }

    /** Length of the masked prefix taken from the frame (network + UDP headers, plus the BTH when masked). */
    public static int prefixLength(final int net, final boolean bth)
    {
        final int n = switch (net)
        {
            case NET_IPV4_UDP -> Ipv4Header.LENGTH + UdpHeader.LENGTH;
            case NET_IPV6_UDP -> Ipv6Header.LENGTH + UdpHeader.LENGTH;
            case NET_GRH -> Ipv6Header.LENGTH;
            default -> 0;
        };
        return n + (bth ? Bth.LENGTH : 0);
    }

    /** Writes the ICRC least significant byte first (WIRE.md §6). */
    public static void put(final MutableDirectBuffer b, final int index, final int icrc)
    {
        b.putInt(index, icrc, ByteOrder.LITTLE_ENDIAN);
    }

    public static int get(final DirectBuffer b, final int index)
    {
        return b.getInt(index, ByteOrder.LITTLE_ENDIAN);
    }
}
