/**
 * UD multicast: the Ethernet MAC a RoCE multicast GID maps to, which a sender's address handle addresses and a
 * receiving port accepts once one of its QPs has attached to the group.
 */
package org.urdma.transport.mcast;
