package org.urdma.bench.express;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
import org.urdma.express.hash.Sha256;

/**
 * The block hash of {@code urdma copy} (SHA-256 of a staging window in direct memory, as the I/O threads hash it)
 * beside SHA-512/256 and CRC32C over the same bytes: ns per byte is time per operation divided by the block size.
 * One I/O thread must hash faster than the link delivers (1 Gbit/s = 8 ns/B).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BlockHashBenchmark {
    @Param({"4194304"})
    public int blockBytes;

    private ByteBuffer block;
    private MessageDigest sha512t256;
    private final CRC32C crc = new CRC32C();

    @Setup
    public void setup() throws Exception {
        byte[] b = new byte[blockBytes];
        new Random(1).nextBytes(b);
        block = ByteBuffer.allocateDirect(blockBytes).put(b).flip();
        sha512t256 = MessageDigest.getInstance("SHA-512/256");
    }

    @Benchmark
    public byte[] sha256() {
        return Sha256.of(block);
    }

    @Benchmark
    public byte[] sha512t256() {
        sha512t256.update(block.duplicate());
        return sha512t256.digest();
    }

    @Benchmark
    public long crc32c() {
        crc.reset();
        crc.update(block.duplicate());
        return crc.getValue();
    }
}
