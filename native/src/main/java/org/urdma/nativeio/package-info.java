/**
 * The OS boundary of urdma through the Java FFM API (no JNI), free of protocol logic.
 *
 * <ul>
 *   <li>{@link org.urdma.nativeio.Libc}: libc downcalls with errno capture; {@link org.urdma.nativeio.NativeException}.</li>
 *   <li>{@link org.urdma.nativeio.NetInterface}: index, MAC, MTU and flags of an interface in the calling
 *       thread's network namespace.</li>
 *   <li>{@link org.urdma.nativeio.AfPacketSocket}: AF_PACKET with mmap'ed TPACKET_V3 (or V2) RX and TX
 *       rings, zero-copy {@link org.urdma.nativeio.RxFrame} iteration, TX slots written in place and flushed
 *       in batches; configured by {@link org.urdma.nativeio.AfPacketOptions}.</li>
 *   <li>{@link org.urdma.nativeio.TapDevice}: a TAP interface read and written a frame at a time.</li>
 *   <li>{@link org.urdma.nativeio.RawBlast}: the raw AF_PACKET throughput baseline.</li>
 *   <li>{@link org.urdma.nativeio.IsalCrc32}: CRC-32 from Intel ISA-L when installed (the ICRC's fast path).</li>
 * </ul>
 * Namespaces and test topologies: {@link org.urdma.nativeio.netns}.
 */
package org.urdma.nativeio;
