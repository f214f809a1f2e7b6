package org.urdma.verbs;

/** A reusable holder for one asynchronous event. */
public final class AsyncEvent {
    public AsyncEventType type;
    /** The QP, SRQ or CQ the event is about. */
    public Object element;

    @Override
    public String toString() {
        return "event[" + type + " on " + element + "]";
    }
}
