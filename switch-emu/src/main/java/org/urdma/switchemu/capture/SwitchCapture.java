package org.urdma.switchemu.capture;

import org.agrona.DirectBuffer;
import org.urdma.transport.pcap.PcapWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code --pcap DIR}: one pcap file per switch port ({@code NAME-pN.pcap}), holding what the port
 * received and what it sent, as tcpdump on that interface would. Timestamps are the driver's time plus
 * {@code epochOffsetNs} (0 in the simulator: virtual time since the start).
 */
public final class SwitchCapture implements AutoCloseable {
    private final PcapWriter[] writers;
    private final long epochOffsetNs;

    public SwitchCapture(Path directory, String switchName, int ports, long epochOffsetNs) throws IOException {
        Files.createDirectories(directory);
        this.writers = new PcapWriter[ports];
        this.epochOffsetNs = epochOffsetNs;
        try {
            for (int p = 0; p < ports; p++) {
                writers[p] = new PcapWriter(file(directory, switchName, p));
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    public static Path file(Path directory, String switchName, int port) {
        return directory.resolve(switchName + "-p" + port + ".pcap");
    }

    /** A frame as it arrived on {@code port} (before impairment and the switch). */
    public void received(int port, DirectBuffer buffer, int offset, int length, long nowNs) {
        writers[port].write(Math.max(0, nowNs + epochOffsetNs), buffer, offset, length);
    }

    /** A frame as the switch sent it on {@code port} (after ECN marking, before egress impairment). */
    public void sent(int port, DirectBuffer buffer, int offset, int length, long startNs) {
        writers[port].write(Math.max(0, startNs + epochOffsetNs), buffer, offset, length);
    }

    @Override
    public void close() {
        IOException failure = null;
        for (PcapWriter w : writers) {
            if (w != null) {
                try {
                    w.close();
                } catch (IOException e) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw new UncheckedIOException(failure);
        }
    }
}
