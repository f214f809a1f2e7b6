package org.urdma.transport.cm.perftest;

import java.io.IOException;

/**
 * The peer of an out-of-band exchange sent bytes that do not follow the tool's format (or a version
 * we cannot talk to). The message names the field, its offset and the rule broken; the connection
 * must be closed, as the stock tools do.
 */
public final class ExchangeFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    public ExchangeFormatException(String message) {
        super(message);
    }
}
