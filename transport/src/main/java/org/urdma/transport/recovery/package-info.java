/**
 * Loss recovery, one instance per RC queue pair (Aeron's per-stream policies made by suppliers; its
 * {@code RetransmitHandler} deciding what to resend apart from how): {@link org.urdma.transport.recovery.LossRecovery}
 * hears what the requester sent and what came back, and tells it what to send again through a
 * {@link org.urdma.transport.recovery.LossRecovery.Retransmitter}; on the responder side it decides what a sequence gap
 * means. Go-back-N (the DC default, rxe-compatible) and go-back-0 (the SIGCOMM 2016 livelock) live here.
 */
package org.urdma.transport.recovery;
