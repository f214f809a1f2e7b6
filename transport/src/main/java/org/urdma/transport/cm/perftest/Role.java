package org.urdma.transport.cm.perftest;

/**
 * Which end of the TCP exchange this side is. In perftest and the ibv_*_pingpong tools the client
 * (the side given a server name) writes first and the server reads first, at every step.
 */
public enum Role {
    CLIENT,
    SERVER
}
