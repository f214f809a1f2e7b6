/**
 * Network namespace harness for tests and {@code urdma topo}: {@link org.urdma.nativeio.netns.Topology}
 * (namespaces, veth pairs, bridges; always torn down), {@link org.urdma.nativeio.netns.Netns} (run code on
 * the current thread inside a namespace via setns, or a process via {@code ip netns exec}),
 * {@link org.urdma.nativeio.netns.Ip} (iproute2 with stderr in errors), {@link org.urdma.nativeio.netns.Privileges}
 * and, for JUnit 5, {@link org.urdma.nativeio.netns.junit.RootAssumptions}.
 */
package org.urdma.nativeio.netns;
