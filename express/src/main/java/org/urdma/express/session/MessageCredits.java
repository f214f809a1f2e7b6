package org.urdma.express.session;

/**
 * Receive credits of one control channel: a SEND goes only into a receive the peer said it posted. Each side posts
 * {@code receives} receives at the start and every SEND carries, as its immediate data, how many receives its side
 * has posted so far (a running count, compared modulo 2^32), so the peer knows how many more SENDs will find one. One
 * credit is kept for a credit-only message, which a side sends once half its receives were reposted unannounced, so
 * neither side waits on the other for credits. Without credits a burst of messages (a server's first grants) runs
 * past the peer's receives, and the WAN mode drops a SEND ahead of order that has no receive: resent only on an ACK
 * timeout, one timeout per message. Used by the channel's one thread.
 */
public final class MessageCredits {
    private final int receives;
    /** Receives this side posted, running count. */
    private int posted;
    /** The count the last SEND carried. */
    private int announced;
    /** Receives the peer said it posted, running count (it posts as many as this side at the start). */
    private int peerPosted;
    /** SENDs this side posted, running count. */
    private int sent;

    public MessageCredits(int receives) {
        if (receives < 4) throw new IllegalArgumentException("receives: at least 4, was " + receives);
        this.receives = receives;
        this.posted = receives;
        this.announced = receives;
        this.peerPosted = receives;
    }

    /** {@return SENDs that would still find a receive at the peer} */
    public int available() {
        return peerPosted - sent;
    }

    /** {@return whether a message may go now (one credit stays for a credit-only message)} */
    public boolean mayPostMessage() {
        return available() > 1;
    }

    /** {@return whether a credit-only message is due and may go} */
    public boolean creditDue() {
        return posted - announced >= receives / 2 && available() > 0;
    }

    /** A SEND is posted: {@return the count it carries as immediate data} */
    public int onSend() {
        sent++;
        announced = posted;
        return posted;
    }

    /** This side posted one receive again. */
    public void onReposted() {
        posted++;
    }

    /** A SEND of the peer arrived carrying {@code count}; a count older than one heard before is ignored. */
    public void onPeerCount(int count) {
        if (count - peerPosted > 0) peerPosted = count;
    }
}
