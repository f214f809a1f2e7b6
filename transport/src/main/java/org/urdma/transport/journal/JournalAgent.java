package org.urdma.transport.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.DirectBuffer;
import org.agrona.collections.MutableLong;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.SystemEpochNanoClock;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * Drains the journal's ring into its Chronicle Queue, stamping each batch with the wall-clock time of the
 * drain (the engine's own time stays in the record). Each drain is one queue entry holding its records back
 * to back: type (byte), epoch ns, engine time ns, device, qpn, a, b, c (+ the name, for DEVICE). A DEVICE
 * record precedes a device's first event; a LOST record follows whenever a device's lost counter grew. The
 * appender belongs to the thread that runs this agent.
 */
public final class JournalAgent implements Agent {
    /** Records per drain (one queue entry): about 150 KB, well inside a queue block. */
    static final int DRAIN_LIMIT = 4096;

    private final RingBuffer ring;
    private final ChronicleQueue queue;
    private final List<String> devices;
    private final List<EventJournal> journals;
    private final List<MutableLong> lostSeen = new ArrayList<>();
    private final EpochNanoClock clock = new SystemEpochNanoClock();
    private final MessageHandler handler = this::onEvent;
    private ExcerptAppender appender;
    /** The open queue entry of this drain. */
    private Bytes<?> out;
    private int devicesWritten;
    private long epochNs;
    private long drained;

    JournalAgent(RingBuffer ring, ChronicleQueue queue, List<String> devices, List<EventJournal> journals) {
        this.ring = ring;
        this.queue = queue;
        this.devices = devices;
        this.journals = journals;
    }

    @Override
    public int doWork() {
        if (ring.size() == 0 && devicesWritten == devices.size() && !lostGrew()) {
            return 0;
        }
        epochNs = clock.nanoTime();
        // one queue entry per drain: Chronicle's cost per entry (~0.3 µs here) would otherwise bound the agent
        // to a few million events a second; per record it is a few bytes copied
        try (DocumentContext dc = appender().writingDocument()) {
            out = dc.wire().bytes();
            int work = writeDevices();
            work += ring.read(handler, DRAIN_LIMIT);
            work += writeLost();
            out = null;
            return work;
        }
    }

    /** Events taken from the ring so far. */
    public long drained() {
        return drained;
    }

    @Override
    public void onClose() {
        // what the engines wrote before close still goes in
        while (doWork() > 0) {
            // drain
        }
        if (appender != null) {
            appender.close();
            appender = null;
        }
    }

    @Override
    public String roleName() {
        return "urdma-journal";
    }

    private void onEvent(int typeId, DirectBuffer buffer, int index, int length) {
        EventType type = EventType.ofTypeId(typeId);
        if (type == null || length < EventJournal.LENGTH) {
            return;
        }
        int device = buffer.getInt(index + EventJournal.DEVICE_AT);
        if (device >= devicesWritten) {
            writeDevices();
        }
        drained++;
        Bytes<?> b = out;
        b.writeByte((byte) type.ordinal());
        b.writeLong(epochNs);
        b.writeLong(buffer.getLong(index + EventJournal.TIME_AT));
        b.writeInt(device);
        b.writeInt(buffer.getInt(index + EventJournal.QPN_AT));
        b.writeInt(buffer.getInt(index + EventJournal.A_AT));
        b.writeInt(buffer.getInt(index + EventJournal.B_AT));
        b.writeInt(buffer.getInt(index + EventJournal.C_AT));
    }

    private int writeDevices() {
        int n = 0;
        while (devicesWritten < devices.size()) {
            int id = devicesWritten++;
            Bytes<?> b = out;
            b.writeByte((byte) EventType.DEVICE.ordinal());
            b.writeLong(epochNs);
            b.writeLong(0);
            b.writeInt(id);
            b.writeInt(-1);
            b.writeInt(0);
            b.writeInt(0);
            b.writeInt(0);
            b.writeUtf8(devices.get(id));
            n++;
        }
        return n;
    }

    private int writeLost() {
        int n = 0;
        for (int i = 0; i < journals.size(); i++) {
            if (i == lostSeen.size()) {
                lostSeen.add(new MutableLong());
            }
            long lost = journals.get(i).lost();
            long delta = lost - lostSeen.get(i).get();
            if (delta > 0) {
                lostSeen.get(i).set(lost);
                Bytes<?> b = out;
                b.writeByte((byte) EventType.LOST.ordinal());
                b.writeLong(epochNs);
                b.writeLong(0);
                b.writeInt(journals.get(i).deviceId());
                b.writeInt(-1);
                b.writeInt((int) Math.min(Integer.MAX_VALUE, delta));
                b.writeInt(0);
                b.writeInt(0);
                n++;
            }
        }
        return n;
    }

    private boolean lostGrew() {
        for (int i = 0; i < journals.size(); i++) {
            if (i >= lostSeen.size() || journals.get(i).lost() != lostSeen.get(i).get()) {
                return true;
            }
        }
        return false;
    }

    private ExcerptAppender appender() {
        if (appender == null) {
            appender = queue.createAppender();
        }
        return appender;
    }
}
