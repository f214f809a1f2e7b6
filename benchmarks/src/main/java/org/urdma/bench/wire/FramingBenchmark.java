package org.urdma.bench.wire;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

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
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;

/**
 * Encode + decode of one RC RDMA WRITE ONLY packet with a 4096-byte payload: the payload is copied once
 * from a direct "MR" buffer into a direct frame buffer, lengths/checksums/ICRC computed, then the frame is
 * decoded and its ICRC verified. Run with {@code -prof gc}: the target is 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FramingBenchmark {
    @Param({"roce2", "roce1", "paxi-standard"})
    public String framing;

    @Param({"4096"})
    public int payloadBytes;

    private Framing codec;
    private Packet tx;
    private final Packet rx = new Packet();
    private UnsafeBuffer frame;

    @Setup
    public void setup() {
        final FramingKind kind = FramingKind.parse(framing);
        codec = Framings.of(kind);
        frame = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadBytes + 256));
        tx = BenchPackets.rc(Opcode.RC_RDMA_WRITE_ONLY, payloadBytes);
        tx.rethVa = 0x7f00_0000_1000L;
        tx.rethRkey = 0x1234;
        tx.rethDmaLength = Math.min(payloadBytes, kind.isPaxi() ? 1344 : payloadBytes);
        tx.payloadLength = tx.rethDmaLength;
    }

    @Benchmark
    public int encodeDecode() {
        tx.psn = (tx.psn + 1) & 0xFF_FFFF;
        final int length = codec.encode(tx, frame, 0);
        final DecodeStatus status = codec.decode(frame, 0, length, rx);
        if (status != DecodeStatus.OK) {
            throw new IllegalStateException("decode failed: " + status);
        }
        return rx.payloadLength + rx.psn;
    }
}
