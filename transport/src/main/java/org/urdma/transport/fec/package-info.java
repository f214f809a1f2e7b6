/**
 * P-FEC, URDMA's packet-level XOR forward error correction (seed 001 §2.2.3, WIRE.md §10), as pure codecs the engine
 * drives. {@link org.urdma.transport.fec.FecEncoder}: per group of m data packets from a base PSN, data packet i is
 * XORed into parity i mod r as it is sent, its length into the parity's 16-bit length XOR; the r parity payloads and
 * their FEC-ETH (base PSN, m, r, index, length XOR) are ready when the m-th is added; they go out with opcode 0xC1 and
 * take no PSN. {@link org.urdma.transport.fec.FecDecoder}: the same running XOR per stripe at the receiver, parity
 * included; a stripe with its parity and one data packet missing yields that packet (PSN, bytes, length); two or more
 * missing are unrecoverable and left to SACK. {@link org.urdma.transport.fec.FecSizing}: m and r from the loss rate
 * the receiver reports (more parity per group on a lossy path, one per 64 packets on a clean one; the rule is in its
 * comment). The codecs XOR whatever bytes they are given: the engine should protect what it needs to re-parse a
 * rebuilt packet (e.g. the opcode and the headers after the BTH with the payload). Buffers are made up front; adding,
 * receiving and rebuilding packets allocate nothing; no clock, no randomness.
 */
package org.urdma.transport.fec;
