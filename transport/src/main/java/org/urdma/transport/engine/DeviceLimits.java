package org.urdma.transport.engine;

import org.urdma.transport.packet.Link;
import org.urdma.verbs.DeviceAttributes;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;

/**
 * What a device's verbs objects may ask for (ibv_query_device's limits, from its {@link DeviceConfig} and its link),
 * checked when a QP or CQ is made or a QP modified; a request past one is refused naming the field.
 */
public final class DeviceLimits {
    private final DeviceConfig config;
    private final Link link;

    DeviceLimits(DeviceConfig config, Link link) {
        this.config = config;
        this.link = link;
    }

    DeviceAttributes attributes() {
        return new DeviceAttributes(config.maxQp(), config.maxQpWr(), config.maxSge(), config.maxCqe(), config.maxMr(),
                Integer.MAX_VALUE, config.maxRdAtomic(), config.maxRdAtomic(), 1024, config.maxQpWr(), config.maxInline(),
                config.maxMr(), CAP_FLAGS);
    }

    /** What the engine offers, as ibv_device_cap_flags: RNR NAKs, memory windows of type 1 and 2B (rxe's set of window types). */
    public static final long CAP_FLAGS = DeviceAttributes.RC_RNR_NAK_GEN | DeviceAttributes.MEM_WINDOW | DeviceAttributes.MEM_WINDOW_TYPE_2B;

    /** A QP's queue capacities. */
    void checkQpCaps(QpInitAttributes init) {
        if (init.maxSendWr() > config.maxQpWr()) {
            throw new IllegalArgumentException("cap.max_send_wr: " + init.maxSendWr() + " exceeds device max_qp_wr " + config.maxQpWr());
        }
        if (init.maxRecvWr() > config.maxQpWr()) {
            throw new IllegalArgumentException("cap.max_recv_wr: " + init.maxRecvWr() + " exceeds device max_qp_wr " + config.maxQpWr());
        }
        if (init.maxSendSge() > config.maxSge() || init.maxRecvSge() > config.maxSge()) {
            throw new IllegalArgumentException("cap.max_send_sge/max_recv_sge: exceed device max_sge " + config.maxSge());
        }
        if (init.maxInlineData() > config.maxInline()) {
            throw new IllegalArgumentException("cap.max_inline_data: " + init.maxInlineData() + " exceeds device max " + config.maxInline());
        }
    }

    /** One more QP, when {@code qps} exist. */
    void checkQpCount(int qps) {
        if (qps >= config.maxQp()) throw new IllegalStateException("qp: device limit of " + config.maxQp() + " QPs reached");
    }

    void checkCq(int entries) {
        if (entries <= 0 || entries > config.maxCqe()) {
            throw new IllegalArgumentException("cqe: must be 1.." + config.maxCqe() + ", was " + entries);
        }
    }

    /** A modify's path MTU (the link's payload) and READ/atomic depths (max_qp_init_rd_atom, max_qp_rd_atom). */
    void checkModify(QpAttributes a, int mask) {
        if ((mask & QpAttrMask.PATH_MTU) != 0 && a.pathMtu().bytes() > link.maxPayload()) {
            throw new IllegalArgumentException("path_mtu: " + a.pathMtu().bytes() + " exceeds the link's " + link.maxPayload());
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0 && a.maxRdAtomic() > config.maxRdAtomic()) {
            throw new IllegalArgumentException("max_rd_atomic: " + a.maxRdAtomic() + " exceeds device max_qp_init_rd_atom " + config.maxRdAtomic());
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0 && a.maxDestRdAtomic() > config.maxRdAtomic()) {
            throw new IllegalArgumentException("max_dest_rd_atomic: " + a.maxDestRdAtomic() + " exceeds device max_qp_rd_atom " + config.maxRdAtomic());
        }
    }
}
