package org.urdma.tools.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The memcpy printed beside write-bw is timed over windows, not over the run's message count. */
class WriteBwCopyBaselineTest {
    @Test
    void theCopyCeilingIsTimedOverItsWindowsWhateverTheSize() {
        long start = System.nanoTime();
        double bytesPerSec = WriteBwCommand.copyBandwidth(64);
        long elapsed = System.nanoTime() - start;
        long planned = WriteBwCommand.COPY_WARMUP_NANOS + WriteBwCommand.COPY_WINDOWS * WriteBwCommand.COPY_WINDOW_NANOS;
        // a count of copies of 64 bytes would be over in microseconds
        assertTrue(elapsed >= planned, "ran " + elapsed + " ns, planned at least " + planned);
        assertTrue(bytesPerSec > 0 && Double.isFinite(bytesPerSec), "bytes/s " + bytesPerSec);
    }
}
