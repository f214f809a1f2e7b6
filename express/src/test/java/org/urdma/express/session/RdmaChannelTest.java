package org.urdma.express.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.urdma.express.protocol.Message;
import org.urdma.express.receiver.Server;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.engine.SoftQp;

class RdmaChannelTest {
    private static final int MESSAGES = 300;

    private static final class Inbox implements ControlChannel.Handler {
        final List<Message> got = new ArrayList<>();

        @Override
        public void onMessage(Message m) {
            got.add(m);
        }

        @Override
        public void onWriteDone(long token) {
        }
    }

    private static long counter(RdmaChannel c, Counter k) {
        return ((SoftQp) c.connection().qp()).counters().get(k);
    }

    /** Pumps until {@code done} holds or 10 s passed (a bound on the wait, not a timing assertion). */
    private static void pumpUntil(java.util.function.BooleanSupplier done, Runnable pump) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean() && System.nanoTime() - deadline < 0) {
            pump.run();
            LockSupport.parkNanos(20_000);
        }
    }

    @Test
    void aBurstOfMessagesWaitsForThePeersReceivesAndNoSendRunsPastThem() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory()); RdmaServer listener = pair.first().listen(0)) {
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(
                    () -> listener.accept(Server.endpoint(true, Duration.ofSeconds(10), new byte[0])));
            RdmaConnection c = pair.second().connect("127.0.0.1", listener.port(), Server.endpoint(true, Duration.ofSeconds(10), new byte[0]));
            try (SessionMemory ma = new SessionMemory(pair.first().pd()); SessionMemory mb = new SessionMemory(pair.second().pd());
                 RdmaChannel sender = new RdmaChannel(accepted.get(), ma, 256); RdmaChannel receiver = new RdmaChannel(c, mb, 256)) {
                Inbox sent = new Inbox();
                Inbox got = new Inbox();
                for (int i = 0; i < MESSAGES; i++) sender.send(new Message.Grant(i, 4096L * i, 7, 4096));
                // the receiver does not poll: the sender posts what the peer's receives hold and then waits
                pumpUntil(() -> sender.credits() <= 1 && !sender.inFlight(), () -> sender.pump(sent));
                assertEquals(0, counter(receiver, Counter.RNR_NAKS_SENT), "no SEND found the receive queue empty");
                assertEquals(0, counter(receiver, Counter.DROP_NOT_PLACEABLE), "no SEND was dropped for want of a receive");
                assertEquals(1, sender.credits(), "every credit but the one kept for a credit message is spent");
                // until the receiver's credit messages are back too: the last of them may still be on its way when the last message arrived
                pumpUntil(() -> got.got.size() == MESSAGES && sender.credits() > 1, () -> {
                    receiver.pump(got);
                    sender.pump(sent);
                });
                assertEquals(MESSAGES, got.got.size());
                for (int i = 0; i < MESSAGES; i++) assertEquals(i, ((Message.Grant) got.got.get(i)).slot(), "in order");
                assertEquals(0, counter(receiver, Counter.RNR_NAKS_SENT));
                assertEquals(0, counter(sender, Counter.ACK_TIMEOUTS));
                assertTrue(sender.credits() > 1, "credits came back with the receiver's credit messages: " + sender.credits());
            }
        }
    }
}
