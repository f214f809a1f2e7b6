/**
 * One packet between the engine and the wire, read and written in place (rxe's {@code rxe_pkt_info} with header
 * accessors; Aeron's flyweights): {@link org.urdma.transport.packet.TxPacket} writes BTH, extended headers and payload
 * straight into a link's frame slot, {@link org.urdma.transport.packet.RxPacket} reads them from the received frame.
 * {@link org.urdma.transport.packet.Link} is what the engine sends and receives through; links implement it, so the
 * engine and link packages do not import each other.
 */
package org.urdma.transport.packet;
