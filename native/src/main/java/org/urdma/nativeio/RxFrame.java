package org.urdma.nativeio;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.urdma.nativeio.LinuxConstants.*;

/**
 * A received frame inside an RX ring: a reusable flyweight that is only valid during
 * {@link FrameHandler#onFrame}. The frame's bytes are {@code buffer()[offset(), offset()+length())};
 * the buffer is the mapped ring itself (zero copy), so copy out what you need before returning.
 *
 * <p>VLAN: Linux strips an 802.1Q tag on receive into metadata ({@link #vlanValid()} +
 * {@link #vlanTci()}); when it does not (e.g. a second tag, or offload off), the tag is still in the
 * data. {@link #effectiveTci()} reports the tag from wherever it is.
 */
public final class RxFrame {
    private static final java.lang.foreign.ValueLayout.OfShort BE_SHORT =
            java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    MemorySegment buffer;
    long offset;
    int length;
    int wireLength;
    int status;
    int vlanTci;
    int vlanTpid;
    long sec;
    long nsec;

    /** The mapped ring; valid only during the callback. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** Offset of the first byte of the Ethernet header in {@link #buffer()}. */
    public long offset() {
        return offset;
    }

    /** Absolute address of the first byte (e.g. for Agrona's UnsafeBuffer.wrap(address, length)). */
    public long address() {
        return buffer.address() + offset;
    }

    /** Bytes captured (tp_snaplen). */
    public int length() {
        return length;
    }

    /** Length of the frame on the wire (tp_len); larger than {@link #length()} if truncated. */
    public int wireLength() {
        return wireLength;
    }

    public boolean truncated() {
        return wireLength > length;
    }

    /** Raw tp_status bits (TP_STATUS_*). */
    public int status() {
        return status;
    }

    /** The kernel dropped frames before this one because the ring was full (TP_STATUS_LOSING). */
    public boolean losing() {
        return (status & TP_STATUS_LOSING) != 0;
    }

    /** The kernel stripped an 802.1Q tag into {@link #vlanTci()} (TP_STATUS_VLAN_VALID). */
    public boolean vlanValid() {
        return (status & TP_STATUS_VLAN_VALID) != 0;
    }

    /** Stripped tag's TCI (PCP:3 | DEI:1 | VID:12); meaningful only if {@link #vlanValid()}. */
    public int vlanTci() {
        return vlanTci;
    }

    /** Stripped tag's TPID (0x8100 / 0x88a8) if TP_STATUS_VLAN_TPID_VALID, else 0. */
    public int vlanTpid() {
        return (status & TP_STATUS_VLAN_TPID_VALID) != 0 ? vlanTpid : 0;
    }

    /** Kernel receive timestamp, ns since the epoch. */
    public long timestampNanos() {
        return sec * 1_000_000_000L + nsec;
    }

    /** True if the data itself still carries an 802.1Q/802.1ad tag after the MAC addresses. */
    public boolean vlanTagInData() {
        if (length < 18) {
            return false;
        }
        int type = Short.toUnsignedInt(buffer.get(BE_SHORT, offset + 12));
        return type == ETH_P_8021Q || type == ETH_P_8021AD;
    }

    /** TCI of the first tag still in the data (the inner one if the kernel stripped the outer), else -1. */
    public int dataTci() {
        return vlanTagInData() ? Short.toUnsignedInt(buffer.get(BE_SHORT, offset + 14)) : -1;
    }

    /** The outer VLAN TCI from metadata if present, else from the data, else -1. */
    public int effectiveTci() {
        if (vlanValid()) {
            return vlanTci & 0xFFFF;
        }
        if (vlanTagInData()) {
            return Short.toUnsignedInt(buffer.get(BE_SHORT, offset + 14));
        }
        return -1;
    }

    /** EtherType after any VLAN tag that is still in the data. */
    public int etherType() {
        if (length < 14) {
            return -1;
        }
        int type = Short.toUnsignedInt(buffer.get(BE_SHORT, offset + 12));
        if ((type == ETH_P_8021Q || type == ETH_P_8021AD) && length >= 18) {
            return Short.toUnsignedInt(buffer.get(BE_SHORT, offset + 16));
        }
        return type;
    }

    public byte byteAt(int i) {
        return buffer.get(JAVA_BYTE, offset + i);
    }

    /** Copies the captured bytes into a new array (allocates: for tests and tools). */
    public byte[] toArray() {
        return buffer.asSlice(offset, length).toArray(JAVA_BYTE);
    }
}
