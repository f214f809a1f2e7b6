package org.urdma.tools.perf;

import picocli.CommandLine.Command;

/**
 * {@code urdma perf send-lat}: ib_send_lat. Ping-pong of SENDs between client and server; each half round
 * trip goes into an HdrHistogram; prints perftest's columns (min, max, typical = median, avg, stdev, 99%, 99.9%).
 */
@Command(name = "send-lat", mixinStandardHelpOptions = true, description = "SEND ping-pong latency (ib_send_lat); RC, UC or UD.")
public final class SendLatCommand extends PerfTestCommand {
    public SendLatCommand() {
        super(PerfTest.SEND_LAT);
    }
}
