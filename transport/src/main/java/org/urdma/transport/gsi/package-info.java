/**
 * The General Services Interface of a urdma port: QP1 and the management datagrams (MADs) it carries, the IB
 * Communication Manager (class 0x07: REQ/REP/RTU, REJ, MRA, DREQ/DREP, SIDR) that librdmacm applications speak over
 * RoCE, and rdma_cm's IP addressing on top of it (service IDs per port space, the private-data header).
 * Codecs are flyweights over the 256-byte MAD; the CM state machine takes {@code now} and never reads a clock.
 */
package org.urdma.transport.gsi;
