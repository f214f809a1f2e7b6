/** libpcap capture files: nanosecond writer, micro/nanosecond reader in either byte order. */
package org.urdma.transport.pcap;
