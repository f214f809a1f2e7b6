/**
 * Connection setup: the out-of-band TCP exchange of QP attributes on Netty
 * ({@link org.urdma.transport.cm.ConnectionManager}: io_uring, else epoll, else NIO; port 18515 like perftest) with
 * blocking, time-bounded {@link org.urdma.transport.cm.ExchangeChannel}s; a pluggable message format
 * ({@link org.urdma.transport.cm.ExchangeFormat}; urdma's own is {@link org.urdma.transport.cm.UrdmaExchangeFormat},
 * perftest's and ibv_*_pingpong's plug in the same way); MAC resolution as a NIC does it
 * ({@link org.urdma.transport.cm.NeighborResolver}: ARP for RoCEv2, EUI-64 for RoCEv1); and the QP state sequence
 * ({@link org.urdma.transport.cm.QpConnector}, {@link org.urdma.transport.cm.QpHandshake}). A peer that vanishes,
 * goes silent or sends garbage ends in a {@link org.urdma.transport.cm.ConnectionException} naming the step.
 */
package org.urdma.transport.cm;
