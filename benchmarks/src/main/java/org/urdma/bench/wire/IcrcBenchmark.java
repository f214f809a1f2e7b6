package org.urdma.bench.wire;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.urdma.transport.wire.EthernetHeader;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Icrc;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;

/**
 * ICRC of a RoCEv2 frame (as the decoder verifies it) beside plain {@link CRC32} over the same frame's
 * bytes: the ICRC's masked-prefix handling should cost little next to the CRC itself. Frames live in
 * direct memory, like ring slots. Target: icrc throughput at 4096 bytes ≥ 0.8 × crc32.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class IcrcBenchmark {
    /** Nominal frame size; the frame is the largest RoCEv2 SEND_ONLY of at most this many bytes (4-byte payload steps). */
    @Param({"64", "1024", "4096"})
    public int frameBytes;

    private final Icrc icrc = new Icrc();
    private final CRC32 crc32 = new CRC32();
    private UnsafeBuffer frame;
    private ByteBuffer frameView;
    private int length;

    @Setup
    public void setup() {
        frame = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
        length = encodeSendOnly(frame, frameBytes);
        frameView = frame.byteBuffer().duplicate();
    }

    /** Writes a RoCEv2 RC SEND_ONLY frame of at most {@code maxBytes}; returns its length. */
    static int encodeSendOnly(final UnsafeBuffer frame, final int maxBytes) {
        final Packet p = BenchPackets.rc(Opcode.RC_SEND_ONLY, 8192);
        p.payloadLength = Math.max(0, (maxBytes - 58) & ~3);
        return Framings.of(FramingKind.ROCE2).encode(p, frame, 0);
    }

    @Benchmark
    public int icrc() {
        return icrc.compute(frame, EthernetHeader.LENGTH, Icrc.NET_IPV4_UDP, true, length - Icrc.LENGTH);
    }

    @Benchmark
    public long crc32() {
        crc32.reset();
        frameView.clear().limit(length);
        crc32.update(frameView);
        return crc32.getValue();
    }
}
