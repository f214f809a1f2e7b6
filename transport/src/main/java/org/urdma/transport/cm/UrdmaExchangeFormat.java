package org.urdma.transport.cm;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.urdma.verbs.Gid;
import org.urdma.verbs.PathMtu;

/**
 * urdma's own exchange: one fixed-size binary message each way (client first), carrying everything a
 * {@link QpEndpoint} holds including the MAC and feature bits; barriers and the goodbye are 8-byte tokens.
 * <pre>
 * "URDMACM1" | version u16 (1) | body length u16 (74) | lid u16 | qpn u32 | psn u32 | gid 16 | has-mac u8 | mac 6
 *           | mtu u16 (bytes) | rkey u32 | va u64 | size u64 | out-reads u8 | features u32 | RRCC cap kbit/s u32 (0 none)
 *           | WAN offer: UETH flags u8 | rate control u8 (0 none, 1 rrcc, 2 dcqcn) | FEC m u8 | FEC r u8 | reference bit/s u64
 * </pre>
 * Version 2 added the WAN offer (WIRE.md §10); both sides intersect the offers, see {@link WanOffer#agree}. The cap took
 * a word that was reserved (zero): a peer that sends zero there offers no cap.
 */
public final class UrdmaExchangeFormat implements ExchangeFormat {
    static final byte[] MAGIC = "URDMACM1".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 2;
    static final int BODY = 2 + 4 + 4 + 16 + 1 + 6 + 2 + 4 + 8 + 8 + 1 + 4 + 4 + 4 + 8;
    static final int MESSAGE = MAGIC.length + 4 + BODY;
    static final byte[] SYNC = "URDMASYN".getBytes(StandardCharsets.US_ASCII);
    static final byte[] DONE = "URDMABYE".getBytes(StandardCharsets.US_ASCII);

    @Override
    public String name() {
        return "urdma";
    }

    @Override
    public QpEndpoint exchange(ExchangeChannel channel, QpEndpoint local) {
        byte[] theirs = channel.swap(encode(local), MESSAGE, "QP attribute exchange");
        return decode(theirs, channel.peer());
    }

    @Override
    public void barrier(ExchangeChannel channel, QpEndpoint local, String step) {
        expect(channel.swap(SYNC, SYNC.length, step), SYNC, step, channel.peer());
    }

    @Override
    public void finish(ExchangeChannel channel) {
        expect(channel.swap(DONE, DONE.length, "goodbye"), DONE, "goodbye", channel.peer());
    }

    static byte[] encode(QpEndpoint e) {
        ByteBuffer b = ByteBuffer.allocate(MESSAGE);
        b.put(MAGIC).putShort((short) VERSION).putShort((short) BODY);
        b.putShort((short) e.lid()).putInt(e.qpn()).putInt(e.psn()).put(e.gid().toBytes());
        byte[] mac = e.mac();
        b.put((byte) (mac == null ? 0 : 1)).put(mac == null ? new byte[6] : mac);
        b.putShort((short) e.mtu().bytes()).putInt(e.rkey()).putLong(e.va()).putLong(e.size());
        WanOffer w = e.wan();
        b.put((byte) e.outReads()).putInt(e.features()).putInt(capKbps(w.maxBps()));
        b.put((byte) w.uethFlags()).put((byte) WanOffer.rateCode(w.rateControl())).put((byte) w.fecData()).put((byte) w.fecParity())
                .putLong(w.referenceBps());
        return b.array();
    }

    /** The cap in whole kbit/s, rounded down (at least 1 when there is one, at most what a u32 holds). */
    static int capKbps(long maxBps) {
        if (maxBps == 0) return 0;
        return (int) Math.min(0xFFFF_FFFFL, Math.max(1, maxBps / 1000));
    }

    static QpEndpoint decode(byte[] m, String peer) {
        ByteBuffer b = ByteBuffer.wrap(m);
        byte[] magic = new byte[MAGIC.length];
        b.get(magic);
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new ConnectionException("exchange: " + peer + " is not an urdma peer (first bytes " + HexFormat.of().formatHex(magic)
                    + ", expected \"URDMACM1\"); if it is perftest or ibv_rc_pingpong, select that exchange format");
        }
        int version = Short.toUnsignedInt(b.getShort());
        int body = Short.toUnsignedInt(b.getShort());
        if (version != VERSION || body != BODY) {
            throw new ConnectionException("exchange: " + peer + " speaks urdma CM version " + version + " (body " + body
                    + " bytes); this side speaks version " + VERSION + " (body " + BODY + ")");
        }
        try {
            int lid = Short.toUnsignedInt(b.getShort());
            int qpn = b.getInt();
            int psn = b.getInt();
            byte[] gid = new byte[16];
            b.get(gid);
            boolean hasMac = b.get() != 0;
            byte[] mac = new byte[6];
            b.get(mac);
            int mtu = Short.toUnsignedInt(b.getShort());
            int rkey = b.getInt();
            long va = b.getLong();
            long size = b.getLong();
            int reads = Byte.toUnsignedInt(b.get());
            int features = b.getInt();
            long maxBps = Integer.toUnsignedLong(b.getInt()) * 1000;
            int flags = Byte.toUnsignedInt(b.get());
            int cc = Byte.toUnsignedInt(b.get());
            if (cc >= WanOffer.RATE_CONTROLS.length) throw new IllegalArgumentException("rate control: unknown code " + cc);
            int fecData = Byte.toUnsignedInt(b.get());
            int fecParity = Byte.toUnsignedInt(b.get());
            WanOffer wan = new WanOffer(flags, WanOffer.RATE_CONTROLS[cc], b.getLong(), fecData, fecParity, maxBps);
            return new QpEndpoint(lid, qpn, psn, Gid.of(gid), hasMac ? mac : null, PathMtu.ofBytes(mtu), rkey, va, size, reads,
                    features, wan);
        } catch (IllegalArgumentException e) {
            throw new ConnectionException("exchange: bad QP attributes from " + peer + ": " + e.getMessage(), e);
        }
    }

    private static void expect(byte[] got, byte[] want, String step, String peer) {
        if (!java.util.Arrays.equals(got, want)) {
            throw new ConnectionException(step + ": " + peer + " sent " + HexFormat.of().formatHex(got) + " instead of \""
                    + new String(want, StandardCharsets.US_ASCII) + "\"");
        }
    }
}
