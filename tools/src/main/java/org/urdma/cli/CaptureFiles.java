package org.urdma.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.urdma.transport.pcap.PcapWriter;

/** The {@code --pcap FILE} / {@code --pcapng FILE} pair the commands that capture share. */
public final class CaptureFiles {
    private CaptureFiles() {
    }

    /** Opens the file one of them names (libpcap or pcapng); null when neither is given; both is an error. */
    public static PcapWriter open(String pcap, String pcapng) {
        if (pcap != null && pcapng != null) throw new IllegalArgumentException("--pcap and --pcapng: give one of them");
        String file = pcapng != null ? pcapng : pcap;
        if (file == null) return null;
        try {
            return new PcapWriter(Path.of(file), pcapng != null ? PcapWriter.Format.PCAPNG : PcapWriter.Format.PCAP);
        } catch (IOException e) {
            throw new IllegalArgumentException((pcapng != null ? "--pcapng" : "--pcap") + ": cannot write " + file + ": " + e.getMessage());
        }
    }
}
