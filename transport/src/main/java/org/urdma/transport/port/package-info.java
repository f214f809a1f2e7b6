/**
 * What a port owns like a NIC: its MAC and IPv4 address ({@link org.urdma.transport.port.PortIdentity}), its GID table
 * (index 0 RoCEv1 link-local EUI-64, index 1 RoCEv2 IPv4-mapped; {@link org.urdma.transport.port.GidTable}), and ARP:
 * a responder for its own address and a resolver with retries and expiry for RoCEv2 peers
 * ({@link org.urdma.transport.port.ArpService}, {@link org.urdma.transport.port.ArpResolver}, pure logic with {@code now}).
 */
package org.urdma.transport.port;
