package org.urdma.bench.perf;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** A {@code urdma perf} subcommand: one perftest program with perftest's flags, run by {@link PerfRunner}. */
abstract class PerfTestCommand implements Callable<Integer> {
    @Mixin
    PerfOptions o = new PerfOptions();

    @Mixin
    NetOptions net = new NetOptions();

    private final PerfTest test;

    PerfTestCommand(PerfTest test) {
        this.test = test;
    }

    @Override
    public Integer call() {
        return PerfRunner.run(test, o, net, System.out);
    }

    @Command(name = "read-bw", mixinStandardHelpOptions = true, description = "RDMA READ bandwidth (ib_read_bw)")
    static final class ReadBw extends PerfTestCommand {
        ReadBw() {
            super(PerfTest.READ_BW);
        }
    }

    @Command(name = "send-bw", mixinStandardHelpOptions = true, description = "SEND bandwidth (ib_send_bw); RC, UC or UD")
    static final class SendBw extends PerfTestCommand {
        SendBw() {
            super(PerfTest.SEND_BW);
        }
    }

    @Command(name = "atomic-bw", mixinStandardHelpOptions = true, description = "Atomic bandwidth (ib_atomic_bw), -A CMP_AND_SWAP|FETCH_AND_ADD")
    static final class AtomicBw extends PerfTestCommand {
        AtomicBw() {
            super(PerfTest.ATOMIC_BW);
        }
    }

    @Command(name = "write-lat", mixinStandardHelpOptions = true, description = "RDMA WRITE ping-pong latency (ib_write_lat)")
    static final class WriteLat extends PerfTestCommand {
        WriteLat() {
            super(PerfTest.WRITE_LAT);
        }
    }

    @Command(name = "read-lat", mixinStandardHelpOptions = true, description = "RDMA READ round-trip latency (ib_read_lat)")
    static final class ReadLat extends PerfTestCommand {
        ReadLat() {
            super(PerfTest.READ_LAT);
        }
    }

    @Command(name = "atomic-lat", mixinStandardHelpOptions = true, description = "Atomic round-trip latency (ib_atomic_lat), -A CMP_AND_SWAP|FETCH_AND_ADD")
    static final class AtomicLat extends PerfTestCommand {
        AtomicLat() {
            super(PerfTest.ATOMIC_LAT);
        }
    }
}
