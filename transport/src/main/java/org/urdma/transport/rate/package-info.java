/**
 * Rate control, one instance per queue pair (Aeron's per-stream {@code CongestionControl}; HPCC's per-QP next-available
 * time in {@code rdma-hw.cc}): {@link org.urdma.transport.rate.RateControl} gives the requester a pacing deadline, which
 * joins the driver's next-event time, and hears sent bytes, ACKs (with acked bytes and RTT samples), the receiver's
 * loss-rate reports, CE marks and CNPs. Policies: {@code none}; {@link org.urdma.transport.rate.WindowLimit} (PAXI's
 * length_thr per CC_WINDOW); {@link org.urdma.transport.rate.Dcqcn} (DCQCN as in ns3-rdma/HPCC, reacting to CNPs);
 * {@link org.urdma.transport.rate.Rrcc} (URDMA's BBR-like control with loss feedback and a reference rate). The
 * pacing ones keep time exactly with {@link org.urdma.transport.rate.Pacer}. Timers are evaluated lazily from the
 * {@code now} of each call, so policies need no scheduler, read no clock and allocate nothing.
 */
package org.urdma.transport.rate;
