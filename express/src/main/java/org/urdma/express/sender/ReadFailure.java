package org.urdma.express.sender;

/** A source the reader could not read to its end (vanished, unreadable, changed while read). */
record ReadFailure(int id, String path, String reason) {
}
