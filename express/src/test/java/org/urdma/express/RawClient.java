package org.urdma.express;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.urdma.express.protocol.Message;
import org.urdma.express.receiver.Server;
import org.urdma.express.safety.TokenAuth;
import org.urdma.express.session.ConnectionLostException;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.session.RdmaChannel;
import org.urdma.express.session.SessionMemory;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.UrdmaDevice;

/** A client that sends what a test tells it, well-formed or not, and collects the server's answers. */
final class RawClient implements AutoCloseable, ControlChannel.Handler {
    private final SessionMemory memory;
    private final ControlChannel channel;
    final List<Message> received = new ArrayList<>();

    RawClient(UrdmaDevice device, int port, byte[] token) {
        RdmaConnection c = device.connect("127.0.0.1", port, Server.endpoint(true, Duration.ofSeconds(10), TokenAuth.privateData(token)));
        memory = new SessionMemory(device.pd());
        channel = new RdmaChannel(c, memory, 64);
    }

    RawClient send(Message m) {
        channel.send(m);
        return this;
    }

    RawClient sendRaw(byte[] b) {
        channel.sendRaw(ByteBuffer.wrap(b));
        return this;
    }

    /** Waits until a message of this type arrives (or the server ends the connection) and returns it. */
    <T extends Message> T await(Class<T> type) {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (System.nanoTime() - deadline < 0) {
            for (Message m : received) if (type.isInstance(m)) return type.cast(m);
            try {
                if (channel.pump(this) == 0) LockSupport.parkNanos(100_000);
            } catch (ConnectionLostException e) {
                break;
            }
        }
        for (Message m : received) if (type.isInstance(m)) return type.cast(m);
        throw new AssertionError("no " + type.getSimpleName() + " from the server; got " + received);
    }

    @Override
    public void onMessage(Message m) {
        received.add(m);
    }

    @Override
    public void onWriteDone(long token) {
    }

    @Override
    public void close() {
        channel.close();
        memory.close();
    }
}
