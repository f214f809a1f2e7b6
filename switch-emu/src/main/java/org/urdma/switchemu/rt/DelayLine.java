package org.urdma.switchemu.rt;

import org.agrona.DeadlineTimerWheel;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Frames held until a release time (impairment delay, jitter, rate): copies in preallocated slots, a
 * timer wheel for the deadlines. Never releases early; releases late by at most one tick plus the
 * caller's polling gap. Full → the frame is refused (the caller counts it).
 */
final class DelayLine {
    @FunctionalInterface
    interface Release {
        void release(int port, boolean ingress, MutableDirectBuffer buffer, int offset, int length, long now);
    }

    private final DeadlineTimerWheel wheel;
    private final Long2LongHashMap timerToSlot;
    private final UnsafeBuffer memory;
    private final int slotBytes;
    private final int[] free;
    private int freeCount;
    private final int[] length;
    private final int[] port;
    private final boolean[] ingress;
    private Release target;
    private final DeadlineTimerWheel.TimerHandler onExpiry = this::expire;

    DelayLine(int slots, int slotBytes, long startNs) {
        this.wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNs, 1024, 4096);
        this.timerToSlot = new Long2LongHashMap(slots * 2 + 8, 0.65f, -1);
        this.memory = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.multiplyExact(slots, slotBytes)));
        this.slotBytes = slotBytes;
        this.free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.length = new int[slots];
        this.port = new int[slots];
        this.ingress = new boolean[slots];
    }

    /** Holds a copy until {@code releaseNs}; {@code corruptByte} ≥ 0 flips {@code mask} in the copy. */
    boolean hold(long releaseNs, int toPort, boolean toIngress, DirectBuffer src, int offset, int len, int corruptByte,
                 int mask) {
        if (freeCount == 0 || len > slotBytes) {
            return false;
        }
        int slot = free[--freeCount];
        int base = slot * slotBytes;
        memory.putBytes(base, src, offset, len);
        if (corruptByte >= 0 && corruptByte < len) {
            memory.putByte(base + corruptByte, (byte) (memory.getByte(base + corruptByte) ^ mask));
        }
        length[slot] = len;
        port[slot] = toPort;
        ingress[slot] = toIngress;
        timerToSlot.put(wheel.scheduleTimer(releaseNs), slot);
        return true;
    }

    int held() {
        return timerToSlot.size();
    }

    /** Releases every frame due at or before {@code now}. */
    int poll(long now, Release release) {
        this.target = release;
        int released = 0;
        // each wheel poll handles one tick: catch up tick by tick; an empty wheel jumps straight to now
        while (wheel.timerCount() > 0 && wheel.currentTickTime() <= now) {
            released += wheel.poll(now, onExpiry, Integer.MAX_VALUE);
        }
        if (wheel.timerCount() > 0) {
            released += wheel.poll(now, onExpiry, Integer.MAX_VALUE);
        } else {
            wheel.currentTickTime(now);
        }
        return released;
    }

    private boolean expire(TimeUnit unit, long now, long timerId) {
        int slot = (int) timerToSlot.remove(timerId);
        target.release(port[slot], ingress[slot], memory, slot * slotBytes, length[slot], now);
        free[freeCount++] = slot;
        return true;
    }
}
