package org.urdma.verbs;

/** Device limits ({@code ibv_device_attr}, the part urdma uses). */
public record DeviceAttributes(
        int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr, long maxMrSize, int maxQpRdAtom,
        int maxQpInitRdAtom, int maxSrq, int maxSrqWr, int maxInlineData) {
}
