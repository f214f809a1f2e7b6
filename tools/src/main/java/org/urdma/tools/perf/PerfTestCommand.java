package org.urdma.tools.perf;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/** A {@code urdma perf} subcommand: one perftest program with perftest's flags, run by {@link PerfRunner}. */
abstract class PerfTestCommand implements Callable<Integer> {
    @Mixin
    public PerfOptions o = new PerfOptions();

    @Mixin
    public NetOptions net = new NetOptions();

    @Spec
    CommandSpec spec;

    private final PerfTest test;

    /** Options only a real link uses, and options only the memory link uses: given on the other, they are refused. */
    static final List<String> NETWORK_ONLY = List.of("--port", "--ip", "--mac", "--rx-ring", "--vlan", "--pcp", "--cm-timeout",
            "--exchange", "--rate_limit", "--rate_units");
    static final List<String> MEMORY_ONLY = List.of("--link-slots", "--loss", "--link-delay-us", "--link-gbit");

    PerfTestCommand(PerfTest test) {
        this.test = test;
    }

    @Override
    public Integer call() {
        refuseOptionsThatDoNotApply(spec.commandLine().getParseResult());
        return PerfRunner.run(test, o, net, System.out);
    }

    /** An option the chosen link ignores would silently change nothing: refused, naming it. */
    private void refuseOptionsThatDoNotApply(ParseResult parsed) {
        boolean network = NetOptions.isNetwork(o);
        for (String name : network ? MEMORY_ONLY : NETWORK_ONLY) {
            if (parsed.hasMatchedOption(name)) {
                var option = spec.findOption(name);
                throw new ParameterException(spec.commandLine(), String.join("/", option.names()) + ": applies to "
                        + (network ? "--link memory only, not " + o.link : "--link afpacket:IF or tap:IF, not the memory link"));
            }
        }
        if (!network && net.peer != null) {
            throw new ParameterException(spec.commandLine(), "PEER (" + net.peer + "): --link memory runs both sides in this "
                    + "process; a peer needs --link afpacket:IF or tap:IF");
        }
    }

    @Command(name = "read-bw", mixinStandardHelpOptions = true, description = "RDMA READ bandwidth (ib_read_bw).")
    static final class ReadBw extends PerfTestCommand {
        ReadBw() {
            super(PerfTest.READ_BW);
        }
    }

    @Command(name = "send-bw", mixinStandardHelpOptions = true, description = "SEND bandwidth (ib_send_bw); RC, UC or UD.")
    static final class SendBw extends PerfTestCommand {
        SendBw() {
            super(PerfTest.SEND_BW);
        }
    }

    @Command(name = "atomic-bw", mixinStandardHelpOptions = true, description = "Atomic bandwidth (ib_atomic_bw), -A CMP_AND_SWAP|FETCH_AND_ADD.")
    static final class AtomicBw extends PerfTestCommand {
        AtomicBw() {
            super(PerfTest.ATOMIC_BW);
        }
    }

    @Command(name = "write-lat", mixinStandardHelpOptions = true, description = "RDMA WRITE ping-pong latency (ib_write_lat).")
    static final class WriteLat extends PerfTestCommand {
        WriteLat() {
            super(PerfTest.WRITE_LAT);
        }
    }

    @Command(name = "read-lat", mixinStandardHelpOptions = true, description = "RDMA READ round-trip latency (ib_read_lat).")
    static final class ReadLat extends PerfTestCommand {
        ReadLat() {
            super(PerfTest.READ_LAT);
        }
    }

    @Command(name = "atomic-lat", mixinStandardHelpOptions = true, description = "Atomic round-trip latency (ib_atomic_lat), -A CMP_AND_SWAP|FETCH_AND_ADD.")
    static final class AtomicLat extends PerfTestCommand {
        AtomicLat() {
            super(PerfTest.ATOMIC_LAT);
        }
    }
}
