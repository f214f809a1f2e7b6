package org.urdma.express.tree;

import java.nio.file.Path;
import org.urdma.express.protocol.Message;

/**
 * One entry of a source tree.
 *
 * @param source   where it is on this machine
 * @param relative its path at the destination, '/'-separated
 */
public record TreeEntry(Path source, String relative, Message.Kind kind, long size, int mode, long mtimeNs, String target) {
}
