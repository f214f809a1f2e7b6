/**
 * Rate control, one instance per queue pair (Aeron's per-stream {@code CongestionControl}; HPCC's per-QP next-available
 * time in {@code rdma-hw.cc}): {@link org.urdma.transport.rate.RateControl} gives the requester a pacing deadline, which
 * joins the driver's next-event time, and hears sent bytes, ACKs with RTT samples, CE marks and CNPs.
 */
package org.urdma.transport.rate;
