package org.urdma.bench.perf;

import java.time.Duration;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.verbs.AddressHandleAttributes;

/** One side of a two-process run ({@link NetPerfSession}): meets the peer over the out-of-band TCP channel. */
final class NetPerfSide extends PerfSide {
    final NetPerfSession s;

    NetPerfSide(NetPerfSession s, int maxSize) {
        super(s.server, s.qp, s.cq, s.buf, maxSize, Duration.ofSeconds(s.n.cmTimeoutSeconds).toNanos());
        this.s = s;
        this.remoteVa = s.remote.va();
        this.remoteRkey = s.remote.rkey();
        this.remoteQpn = s.remote.qpn();
        if (ud()) {
            byte[] mac = NeighborResolver.resolve(s.device, s.datapath, s.remote.gid(), 2_000_000_000L);
            this.ah = s.pd.createAh(new AddressHandleAttributes().dgid(s.remote.gid()).dmac(mac));
        }
        // the peer's whole run may pass between two barriers; a vanished peer closes the socket
        s.channel.readTimeout(Duration.ofHours(24));
    }

    @Override
    void progress() {
        s.progress();
    }

    @Override
    void sync(String step) {
        s.format.barrier(s.channel, s.local, step);
    }

    @Override
    void settle() {
        s.settle();
    }
}
