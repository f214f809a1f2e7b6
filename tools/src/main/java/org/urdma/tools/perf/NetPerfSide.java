package org.urdma.tools.perf;

import java.time.Duration;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.verbs.AddressHandleAttributes;

/** One side of a two-process run ({@link NetPerfSession}): meets the peer over the out-of-band TCP channel. */
final class NetPerfSide extends PerfSide {
    final NetPerfSession s;

    NetPerfSide(NetPerfSession s, int index, int maxSize) {
        super(s.server, s.qps[index], s.cqs[index], s.bufs[index], maxSize, Duration.ofSeconds(s.n.cmTimeoutSeconds).toNanos());
        this.s = s;
        this.remoteVa = s.remotes[index].va();
        this.remoteRkey = s.remotes[index].rkey();
        this.remoteQpn = s.remotes[index].qpn();
        if (ud()) {
            byte[] mac = NeighborResolver.resolve(s.device, s.datapath, s.remote.gid(), 2_000_000_000L);
            this.ah = s.pd.createAh(new AddressHandleAttributes().dgid(s.remote.gid()).dmac(mac));
        }
        // the peer's whole run may pass between two barriers; keepalive notices a peer that vanished meanwhile
        if (s.perftest != null) s.perftest.readTimeout(s.barrierTimeout());
        else s.channel.readTimeout(s.barrierTimeout());
    }

    /** One side's QPs (-q). */
    static NetPerfSide[] sides(NetPerfSession s, int maxSize) {
        NetPerfSide[] sides = new NetPerfSide[s.qps.length];
        for (int i = 0; i < sides.length; i++) sides[i] = new NetPerfSide(s, i, maxSize);
        return sides;
    }

    @Override
    void progress() {
        s.progress();
    }

    @Override
    void idle(long since) {
        s.idle(since);
    }

    @Override
    void sync(String step) {
        s.barrier(step);
    }

    @Override
    void settle() {
        s.settle();
    }
}
