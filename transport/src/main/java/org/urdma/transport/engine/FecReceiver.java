package org.urdma.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.fec.FecDecoder;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.wire.Psn;

/**
 * P-FEC on the responder (docs/WAN.md): every request packet's transport section and every parity packet go through
 * the {@link FecDecoder}; when a stripe has its parity and all but one of its packets, the missing one is rebuilt into
 * a packet of its own ({@link #rebuilt}) that the responder places like one that arrived. Groups start at the
 * connection's first PSN with the geometry both sides know ({@link FecSender#initialM}); parity realigns the decoder
 * when the sender changes it. Buffers made at RTR; nothing allocated per packet. Engine thread only.
 */
final class FecReceiver {
    private final FecDecoder decoder;
    private final UnsafeBuffer section;
    private final RxPacket rebuilt = new RxPacket();
    /** Rebuilt sections that did not decode (a corrupted parity): left to SACK. */
    long undecodable;
    /** One past the newest group whose parity arrived: a PSN missing below it is beyond FEC's help (or was helped). */
    private int settledEnd;

    FecReceiver(int maxSection, int firstPsn, int m, int r) {
        decoder = new FecDecoder(maxSection, Math.max(32, r), 8);
        decoder.expect(firstPsn, m, r);
        settledEnd = firstPsn;
        section = new UnsafeBuffer(new byte[maxSection]);
    }

    /** A request packet with a PSN arrived; returns a packet it let us rebuild, or null. */
    RxPacket onData(RxPacket p) {
        int th = p.transportOffset();
        int res = decoder.onData(p.psn(), p.payload(), th, p.sectionEnd() - th);
        return res == FecDecoder.RECOVERED ? rebuild(p) : null;
    }

    /** A parity packet arrived; returns a packet it let us rebuild, or null. */
    RxPacket onParity(RxPacket p) {
        int end = Psn.add(p.fecBasePsn(), p.fecM());
        if (p.fecM() > 0 && Psn.after(end, settledEnd) && Psn.diff(end, settledEnd) < PsnWindow.SIZE) settledEnd = end;
        int res = decoder.onParity(p.fecBasePsn(), p.fecM(), p.fecR(), p.fecIndex(), p.fecLengthXor(),
                p.payload(), p.payloadOffset(), p.payloadBytes());
        return res == FecDecoder.RECOVERED ? rebuild(p) : null;
    }

    /**
     * Where the SACK stops listing missing PSNs: beyond it a loss may still be rebuilt once its group's parity comes, so
     * resending it now would spend the bottleneck twice.
     */
    int settledEnd() {
        return settledEnd;
    }

    /** Groups the decoder opened so far (bounded per packet however far ahead its PSN). */
    long groupsOpened() {
        return decoder.groupsOpened();
    }

    private RxPacket rebuild(RxPacket source) {
        int len = decoder.recoveredLength();
        section.putBytes(0, decoder.recovered(), 0, len);
        if (!rebuilt.rebuild(source, section, len) || rebuilt.psn() != decoder.recoveredPsn()) {
            undecodable++;
            return null;
        }
        return rebuilt;
    }
}
