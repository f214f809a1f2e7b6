/**
 * The soft-RoCE engine: one {@link org.urdma.transport.engine.SoftDevice} per port implements the verbs API
 * over a {@link org.urdma.transport.packet.Link}.
 *
 * <p>Per QP, the {@link org.urdma.transport.engine.Requester} segments send WQEs by path MTU, assigns 24-bit
 * PSNs ({@link org.urdma.transport.engine.Psn}) and sets AckReq at message end and every N packets; the
 * {@link org.urdma.transport.engine.Completer} retires WQEs in order on (coalesced) ACKs, READ responses and
 * atomic ACKs, and drives retransmission: NAK sequence errors, implicit NAKs, the local ACK timeout
 * (retry_cnt; 7 is unlimited as in Linux rxe) and RNR NAKs (rnr_retry; 7 = unlimited) through a
 * {@link org.urdma.transport.reliability.Reliability} strategy (go-back-N, or go-back-0 to reproduce the
 * SIGCOMM 2016 livelock). The {@link org.urdma.transport.engine.Responder} checks PSN order, places payloads
 * after checking every rkey (PD, rights, bounds), answers READ/atomics from responder resources that also
 * replay duplicates, and sends coalesced ACKs, NAKs and RNR NAKs; class C errors move it to ERR as rxe does.
 *
 * <p>Threading: everything here runs on the thread that calls {@code doWork(now)} — a driver agent or a
 * test stepping a virtual clock. Applications post into single-producer rings ({@code SendQueue},
 * {@code RecvQueue}) and poll single-consumer completion rings ({@link org.urdma.transport.engine.SoftCq});
 * control operations are queued to the engine thread. Timers live on an Agrona {@code DeadlineTimerWheel}.
 */
package org.urdma.transport.engine;
