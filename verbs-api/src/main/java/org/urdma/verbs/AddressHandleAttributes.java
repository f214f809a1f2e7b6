package org.urdma.verbs;

/** Where a UD message (or an RC/UC connection, as the AV attribute) goes: destination GID and link address. */
public final class AddressHandleAttributes {
    private Gid dgid;
    private byte[] dmac = new byte[6];
    private int serviceLevel;
    private int trafficClass;
    private int hopLimit = 64;
    private int flowLabel;
    private int sgidIndex;

    public AddressHandleAttributes dgid(Gid v) { dgid = v; return this; }
    public AddressHandleAttributes dmac(byte[] v) {
        if (v == null || v.length != 6) throw new IllegalArgumentException("dmac: must be 6 bytes");
        dmac = v.clone(); return this;
    }
    public AddressHandleAttributes serviceLevel(int v) {
        if (v < 0 || v > 7) throw new IllegalArgumentException("serviceLevel: must be 0..7, was " + v);
        serviceLevel = v; return this;
    }
    public AddressHandleAttributes trafficClass(int v) {
        if (v < 0 || v > 255) throw new IllegalArgumentException("trafficClass: must be 0..255, was " + v);
        trafficClass = v; return this;
    }
    public AddressHandleAttributes hopLimit(int v) {
        if (v < 0 || v > 255) throw new IllegalArgumentException("hopLimit: must be 0..255, was " + v);
        hopLimit = v; return this;
    }
    public AddressHandleAttributes flowLabel(int v) {
        if ((v & ~0xFFFFF) != 0) throw new IllegalArgumentException("flowLabel: must fit 20 bits, was " + v);
        flowLabel = v; return this;
    }
    public AddressHandleAttributes sgidIndex(int v) {
        if (v < 0) throw new IllegalArgumentException("sgidIndex: must be >= 0");
        sgidIndex = v; return this;
    }

    public Gid dgid() { return dgid; }
    public byte[] dmac() { return dmac.clone(); }
    public int serviceLevel() { return serviceLevel; }
    public int trafficClass() { return trafficClass; }
    public int hopLimit() { return hopLimit; }
    public int flowLabel() { return flowLabel; }
    public int sgidIndex() { return sgidIndex; }

    public AddressHandleAttributes copy() {
        AddressHandleAttributes c = new AddressHandleAttributes();
        c.dgid = dgid; c.dmac = dmac.clone(); c.serviceLevel = serviceLevel; c.trafficClass = trafficClass;
        c.hopLimit = hopLimit; c.flowLabel = flowLabel; c.sgidIndex = sgidIndex;
        return c;
    }
}
