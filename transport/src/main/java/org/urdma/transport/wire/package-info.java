/**
 * Wire codecs: zero-allocation static flyweights over Agrona buffers for every header of WIRE.md (Ethernet/802.1Q,
 * GRH/IPv6, IPv4, UDP, BTH, PAXI RH and AFH, RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH, DETH, CNP, MAC control
 * PFC/PAUSE, URDMA UETH/TS/AETH-EXT/SACK-ETH/FEC-ETH, PAXI CBFC), one {@link org.urdma.transport.wire.OpcodeTable},
 * the {@link org.urdma.transport.wire.Icrc}, and the {@link org.urdma.transport.wire.Framing}s that turn a
 * {@link org.urdma.transport.wire.Packet} into a frame of each {@link org.urdma.transport.wire.FramingKind} and back.
 *
 * <p>Layout decisions this package fixes where WIRE.md leaves room (keep WIRE.md in step when changing them):
 * <ul>
 * <li>Extended header order after the BTH/RH: UETH, TS, DETH, RETH, AETH, AETH-EXT, SACK-ETH, AtomicETH,
 *     AtomicAckETH, ImmDt, IETH, FEC-ETH, CBFC, CNP (the IBTA ones as in rxe).</li>
 * <li>URDMA headers need a BTH (resv7 bit 0x01), so they exist only in roce1/roce2. TS follows UETH when flag 0x80;
 *     AETH-EXT follows the AETH when flag 0x80; SACK-ETH is on ACKNOWLEDGE when flag 0x20; with flag 0x40 every
 *     RDMA WRITE and READ RESPONSE packet carries a RETH.</li>
 * <li>FEC-ETH is 8 bytes: base PSN (24), m, r, index (8 each), XOR of the data lengths (16).</li>
 * <li>CBFC credit (opcode 0xC0) body: 8 x 16-bit credits, VC 0 first; PAXI formats only.</li>
 * <li>PAXI ICRC covers 8 x 0xFF, then (Standard) the IPv4 and UDP headers masked as for RoCEv2, then the RH
 *     (unmasked: it has no switch-mutable bits) and everything up to the ICRC. AFH headers are not covered.</li>
 * <li>AFH1/AFH2 have no length field: see {@code AfhFraming} for how 60-byte frames with zero fill are read.
 *     AFH_Lite decodes as UC_SEND_ONLY: see {@code LiteFraming}.</li>
 * <li>RoCEv2 vs PAXI Standard is told by the UDP checksum (0 vs 0xFFFF); AFH1 vs AFH2 by a caller hint or a
 *     heuristic, see {@link org.urdma.transport.wire.AnyFrameDecoder}.</li>
 * </ul>
 */
package org.urdma.transport.wire;
