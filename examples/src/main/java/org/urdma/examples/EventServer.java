package org.urdma.examples;

import java.lang.foreign.ValueLayout;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.Completions;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * An event-driven server: it sleeps on a completion channel instead of polling, and on each event drains the
 * receive CQ, checks the messages (each carries its sequence number), reposts the receives and re-arms the CQ
 * (polling once more after arming, so a completion that arrived in between is not missed). The client is
 * {@link SendRecv}'s.
 */
public final class EventServer {
    private EventServer() {
    }

    public static void main(String[] args) {
        ExampleMain.run("EventServer", args, 100, EventServer::server, SendRecv::client);
    }

    public static String server(RdmaServer listener, ExampleArgs a) {
        EndpointOptions o = EndpointOptions.defaults().withTimeout(ExampleArgs.TIMEOUT).withCompletionChannel(true);
        try (RdmaConnection c = listener.accept(o)) {
            int slots = o.depth();
            MemoryRegion in = c.device().register((long) slots * SendRecv.SIZE, AccessFlags.LOCAL_WRITE);
            ReceiveWorkRequest rwr = new ReceiveWorkRequest();
            for (int s = 0; s < slots; s++) c.qp().postRecv(rwr.reset().wrId(s).addSge(in, (long) s * SendRecv.SIZE, SendRecv.SIZE));
            c.recvCq().requestNotify(false);
            c.barrier("receives posted", ExampleArgs.TIMEOUT);
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            int received = 0, events = 0;
            while (received < a.count()) {
                CompletionQueue cq = c.completionChannel().await(ExampleArgs.TIMEOUT.toNanos());
                if (cq == null) throw new IllegalStateException("completion channel: no event within " + ExampleArgs.TIMEOUT.toMillis() + " ms");
                if (cq != c.recvCq()) throw new IllegalStateException("completion channel: event from an unexpected CQ");
                events++;
                cq.requestNotify(false); // re-arm first, then drain: nothing that arrives meanwhile goes unnoticed
                for (int n; (n = cq.poll(wcs)) > 0; ) {
                    for (int k = 0; k < n; k++) {
                        WorkCompletion wc = wcs[k];
                        if (wc.status() != WcStatus.SUCCESS) throw new IllegalStateException("completion: receive failed with " + wc.status());
                        int slot = (int) wc.wrId();
                        SendRecv.check(in.segment(), (long) slot * SendRecv.SIZE, received++);
                        c.qp().postRecv(rwr.reset().wrId(slot).addSge(in, (long) slot * SendRecv.SIZE, SendRecv.SIZE));
                    }
                }
            }
            MemoryRegion out = c.device().register(8, AccessFlags.LOCAL_WRITE);
            out.segment().set(ValueLayout.JAVA_LONG, 0, received);
            c.qp().postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(out, 0, 8));
            Completions.await(c.sendCq(), ExampleArgs.TIMEOUT);
            c.barrier("done", ExampleArgs.TIMEOUT); // the client stays until its ACK of the answer arrived
            return "received and checked " + received + " messages in " + events + " completion events";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
