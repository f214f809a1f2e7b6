/**
 * The soft-RoCE engine: one {@link org.urdma.transport.engine.SoftDevice} per port implements the verbs API
 * over a {@link org.urdma.transport.packet.Link}.
 *
 * <p>Per QP, the {@link org.urdma.transport.engine.Requester} segments send WQEs by path MTU, assigns 24-bit
 * PSNs ({@link org.urdma.transport.wire.Psn}) and sets AckReq at message end and every N packets, paced by the QP's
 * {@link org.urdma.transport.rate.RateControl}; the
 * {@link org.urdma.transport.engine.Completer} retires WQEs in order on (coalesced) ACKs, READ responses and
 * atomic ACKs, and drives retransmission: NAK sequence errors, implicit NAKs, the local ACK timeout
 * (retry_cnt retries, as the IB specification counts them) and RNR NAKs (rnr_retry; 7 = unlimited) through the QP's
 * {@link org.urdma.transport.recovery.LossRecovery} policy (go-back-N, or go-back-0 to reproduce the
 * SIGCOMM 2016 livelock). The {@link org.urdma.transport.engine.Responder} checks PSN order, places payloads
 * after checking every rkey (PD, rights, bounds), answers READ/atomics from responder resources that also
 * replay duplicates, and sends coalesced ACKs, NAKs and RNR NAKs; class C errors move it to ERR as rxe does.
 *
 * <p>Each of those hands its jobs to small classes. Responder: {@code InOrderReceiver} (DC-mode RC, rxe's chain of
 * checks) or {@code WanReceiver} (WAN mode: placed on arrival, with {@code SackRanges}), chosen at RTR;
 * {@code UcUdReceiver}; {@code ResponderResources} (READ/atomic, rxe's resp_res); {@code TakenRecv}. Completer:
 * {@code InOrderReads} or {@code WanReads}, chosen at RTS; {@code AckFeedback} (AETH-EXT and SACK-ETH). Requester:
 * {@code ResendJournal}, {@code RttProbe} (DC-mode RTT samples), {@code CongestionWindow} (a rate control's window).
 * QP: {@code QpControl} (modify, RESET, ERR, flush), {@code QpTimers}, {@code QpReceive}, {@code SendChecks}. Device: {@code EngineGate} (the engine's claim, control queue, posted work),
 * {@code PassScheduler} (the pass), {@code EngineTimers}, {@code DeviceLimits}, {@code QpTable}, {@code RxDemux},
 * {@code McastGroups} (the QPs attached to each multicast group).
 *
 * <p>Threading: everything here runs on the thread that calls {@code doWork(now)} — a driver agent or a
 * test stepping a virtual clock. Applications post into single-producer rings ({@code SendQueue},
 * {@code RecvQueue}) and poll single-consumer completion rings ({@link org.urdma.transport.engine.SoftCq});
 * control operations are queued to the engine thread. Timers live on an Agrona {@code DeadlineTimerWheel}. Each pass
 * serves the QPs round robin, starting one further on each time.
 */
package org.urdma.transport.engine;
