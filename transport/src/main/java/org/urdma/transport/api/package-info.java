/**
 * urdma for Java applications: {@link org.urdma.transport.api.Urdma} opens a device on a link
 * ({@link org.urdma.transport.api.DeviceOptions}), {@link org.urdma.transport.api.UrdmaDevice#listen} and
 * {@link org.urdma.transport.api.UrdmaDevice#connect} give connected QPs with their CQs
 * ({@link org.urdma.transport.api.RdmaConnection}); the verbs themselves are {@code org.urdma.verbs}.
 */
package org.urdma.transport.api;
