package org.urdma.express.sender;

import java.util.List;
import org.urdma.express.protocol.Message;

/**
 * A filled staging window (or none, when no segment carries data) with its segments and the file ends that follow it.
 *
 * @param slot  the local window, or -1
 * @param bytes data bytes in the window
 */
record ReadyChunk(int slot, int bytes, List<Message.Segment> segments, List<Message.FileEnd> ends) {
}
