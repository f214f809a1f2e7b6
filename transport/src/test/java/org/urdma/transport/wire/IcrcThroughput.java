package org.urdma.transport.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Manual measurement (not a test, no timing asserts): ICRC check and encode/decode of a 4096-byte RoCEv2 frame
 * against plain CRC32 over the same bytes. Run after {@code mvn -pl transport test-compile}:
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED \
 *   -cp transport/target/classes:transport/target/test-classes:$HOME/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar \
 *   org.urdma.transport.wire.IcrcThroughput
 * </pre>
 */
public final class IcrcThroughput {
    private IcrcThroughput() {
    }

    public static void main(final String[] args) {
        final Framing roce2 = Framings.of(FramingKind.ROCE2);
        final Framing copying = Framings.of(FramingKind.ROCE2, true, false);
        final Packet p = new Packet();
        p.opcode = Opcode.RC_RDMA_WRITE_MIDDLE;
        final int payload = 4096 - 14 - 20 - 8 - 12 - 4;
        p.payload(new UnsafeBuffer(new byte[payload]), 0, payload);
        final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
        final int len = roce2.encode(p, frame, 0);
        final ByteBuffer view = frame.byteBuffer().duplicate();
        final CRC32 crc = new CRC32();
        final Packet out = new Packet();
        final Icrc icrc = new Icrc();
        final Icrc copyingIcrc = new Icrc(false);
        final long[] ns = new long[6];
        long sink = 0;
        final int n = 2000;
        for (int rep = 0; rep < 3000; rep++) {
            final long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                crc.reset();
                view.clear().limit(len);
                crc.update(view);
                sink += crc.getValue();
            }
            final long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += roce2.decode(frame, 0, len, out).ordinal();
            }
            final long t2 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += copying.decode(frame, 0, len, out).ordinal();
            }
            final long t3 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += roce2.encode(p, frame, 0);
            }
            final long t4 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += icrc.computeInPlace(frame, 14, Icrc.NET_IPV4_UDP, true, len) == Icrc.RESIDUE ? 1 : 0;
            }
            final long t5 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += copyingIcrc.verify(frame, 14, Icrc.NET_IPV4_UDP, true, len - Icrc.LENGTH) ? 1 : 0;
            }
            final long t6 = System.nanoTime();
            if (rep >= 1000) {
                ns[4] += t5 - t4;
                ns[5] += t6 - t5;
                ns[0] += t1 - t0;
                ns[1] += t2 - t1;
                ns[2] += t3 - t2;
                ns[3] += t4 - t3;
            }
        }
        final double runs = 2000.0 * n;
        System.out.printf("ICRC check alone: in place %.1f ns = %.2fx CRC32 throughput | copying %.1f ns = %.2fx%n",
            ns[4] / runs, (double)ns[0] / ns[4], ns[5] / runs, (double)ns[0] / ns[5]);
        System.out.printf("frame %d B: plain CRC32 %.1f ns | decode (in-place ICRC) %.1f ns = %.2fx CRC32 throughput" +
            " | decode (copying ICRC) %.1f ns = %.2fx | encode %.1f ns = %.2fx  [%d]%n",
            len, ns[0] / runs, ns[1] / runs, (double)ns[0] / ns[1], ns[2] / runs, (double)ns[0] / ns[2],
            ns[3] / runs, (double)ns[0] / ns[3], sink & 1);
    }
}
