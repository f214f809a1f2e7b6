/**
 * Real Ethernet links for a soft device: {@link org.urdma.transport.link.ethernet.AfPacketLink} (an AF_PACKET
 * socket with TPACKET rings on an interface such as a veth end) and {@link org.urdma.transport.link.ethernet.TapLink}
 * (a TAP device, like a VM's NIC). Both share {@link org.urdma.transport.link.ethernet.EthernetDatapath}: packets are
 * encoded straight into the TX slot (the framing copies the payload once from the MR), 802.1Q tagging with the
 * configured PCP, received frames decoded in place (the responder copies the payload once into the MR), the PCP read
 * from the kernel's stripped tag or the data, ARP to the port's ARP service, other traffic skipped and malformed
 * frames counted and dropped. Engine thread only; no allocation once warm.
 */
package org.urdma.transport.link.ethernet;
