-- urdma.lua: a Wireshark postdissector for the fields urdma adds to RoCE frames, which Wireshark's InfiniBand
-- dissector does not know: the in-band telemetry (INT) stack of HPCC packets (BTH resv7 bit 0x02) and the URDMA
-- WAN-mode headers (BTH resv7 bit 0x01: UETH, TS, per-packet RETH, AETH-EXT, SACK-ETH, FEC-ETH).
-- Layouts: docs/design/wire-formats.md of the urdma repository. Written by `urdma wire dissector`.
-- Install: `urdma wire dissector --out ~/.local/lib/wireshark/plugins/urdma.lua`, or for one run
-- `tshark -X lua_script:urdma.lua ...`. Fields are named urdma.*, e.g. urdma.int.hops, urdma.int.hop.qlen.
-- Arithmetic only, no bit library (which Lua 5.3 and 5.4 builds of Wireshark lack); the tests run it in Wireshark 4.0.

-- loaded twice (from a plugin directory and by -X lua_script:), the first copy does the work
local loaded, urdma = pcall(Proto, "urdma", "urdma extensions (INT stack, WAN-mode headers)")
if not loaded then return end

local RESV7_URDMA = 0x01
local RESV7_INT = 0x02
local INT_LENGTH = 44
local INT_MAX_HOPS = 5
local INT_UNIT = 128
local ICRC_LENGTH = 4
local ROCE_PORT = 4791
-- Link rate of each INT rate code, Gbit/s (code 0 and unknown codes: 0, a rate senders skip)
local RATE_GBPS = { [1] = 1, [2] = 10, [3] = 25, [4] = 40, [5] = 50, [6] = 100, [7] = 200, [8] = 400, [9] = 800 }

local function has(value, bitmask)
    return math.floor(value / bitmask) % 2 == 1
end

local f = {
    resv7 = ProtoField.uint8("urdma.resv7", "BTH resv7", base.HEX),
    payload_len = ProtoField.uint32("urdma.payload_len", "Payload length", base.DEC),
    ueth = ProtoField.bytes("urdma.ueth", "UETH"),
    ueth_flags = ProtoField.uint8("urdma.ueth.flags", "Flags", base.HEX),
    ueth_ts = ProtoField.bool("urdma.ueth.ts", "Timestamps", 8, nil, 0x80),
    ueth_reth = ProtoField.bool("urdma.ueth.per_packet_reth", "Per-packet RETH", 8, nil, 0x40),
    ueth_sack = ProtoField.bool("urdma.ueth.sack", "SACK-capable", 8, nil, 0x20),
    ueth_fec = ProtoField.bool("urdma.ueth.fec", "FEC parity", 8, nil, 0x10),
    ts_t1 = ProtoField.uint32("urdma.ts.t1", "T1, sender transmit time (ns mod 2^32)", base.DEC),
    ts_tr = ProtoField.uint32("urdma.ts.tr", "Tr, last one-way delay receiver to sender (ns)", base.DEC),
    deth_qkey = ProtoField.uint32("urdma.deth.qkey", "DETH Q_Key", base.HEX),
    deth_srcqp = ProtoField.uint24("urdma.deth.srcqp", "DETH source QP", base.HEX),
    reth_va = ProtoField.uint64("urdma.reth.va", "RETH virtual address", base.HEX),
    reth_rkey = ProtoField.uint32("urdma.reth.rkey", "RETH R_Key", base.HEX),
    reth_dmalen = ProtoField.uint32("urdma.reth.dmalen", "RETH DMA length", base.DEC),
    aeth_syndrome = ProtoField.uint8("urdma.aeth.syndrome", "AETH syndrome", base.HEX),
    aeth_msn = ProtoField.uint24("urdma.aeth.msn", "AETH MSN", base.DEC),
    aeth_ext_t3 = ProtoField.uint32("urdma.aeth_ext.t3", "AETH-EXT T3, ACK transmit time (ns mod 2^32)", base.DEC),
    aeth_ext_ts = ProtoField.uint32("urdma.aeth_ext.ts", "AETH-EXT Ts, one-way delay sender to receiver (ns)", base.DEC),
    aeth_ext_psn = ProtoField.uint24("urdma.aeth_ext.psn", "AETH-EXT answered PSN", base.DEC),
    sack_count = ProtoField.uint8("urdma.sack.count", "SACK-ETH range count", base.DEC),
    sack_loss = ProtoField.uint8("urdma.sack.loss", "SACK-ETH receiver loss rate (1/4096)", base.DEC),
    sack_cumulative = ProtoField.uint24("urdma.sack.cumulative", "SACK-ETH cumulative PSN", base.DEC),
    sack_start = ProtoField.uint24("urdma.sack.range.start", "Missing from PSN", base.DEC),
    sack_length = ProtoField.uint8("urdma.sack.range.length", "Missing PSNs", base.DEC),
    atomic_va = ProtoField.uint64("urdma.atomic.va", "AtomicETH virtual address", base.HEX),
    atomic_rkey = ProtoField.uint32("urdma.atomic.rkey", "AtomicETH R_Key", base.HEX),
    atomic_swap = ProtoField.uint64("urdma.atomic.swap_add", "AtomicETH swap or add", base.HEX),
    atomic_compare = ProtoField.uint64("urdma.atomic.compare", "AtomicETH compare", base.HEX),
    atomic_orig = ProtoField.uint64("urdma.atomic_ack.orig", "AtomicAckETH original value", base.HEX),
    immdt = ProtoField.uint32("urdma.immdt", "Immediate data", base.HEX),
    ieth_rkey = ProtoField.uint32("urdma.ieth.rkey", "IETH R_Key to invalidate", base.HEX),
    fec_base = ProtoField.uint24("urdma.fec.base", "FEC-ETH group base PSN", base.DEC),
    fec_m = ProtoField.uint8("urdma.fec.m", "FEC-ETH data packets per group", base.DEC),
    fec_r = ProtoField.uint8("urdma.fec.r", "FEC-ETH parity packets", base.DEC),
    fec_index = ProtoField.uint8("urdma.fec.index", "FEC-ETH parity index", base.DEC),
    fec_len_xor = ProtoField.uint16("urdma.fec.len_xor", "FEC-ETH XOR of data lengths", base.HEX),
    int_stack = ProtoField.bytes("urdma.int", "INT stack"),
    int_flags = ProtoField.uint8("urdma.int.flags", "Flags", base.HEX),
    int_echo = ProtoField.bool("urdma.int.echo", "Echo (a responder's copy)", 8, nil, 0x80),
    int_hops = ProtoField.uint8("urdma.int.hops", "Hop count", base.DEC),
    int_hop = ProtoField.bytes("urdma.int.hop", "Hop"),
    int_hop_rate_code = ProtoField.uint8("urdma.int.hop.rate_code", "Rate code", base.DEC),
    int_hop_rate = ProtoField.uint32("urdma.int.hop.rate", "Link rate (Gbit/s, 0: unknown)", base.DEC),
    int_hop_qlen = ProtoField.uint32("urdma.int.hop.qlen", "Queue length (bytes)", base.DEC),
    int_hop_tx = ProtoField.uint32("urdma.int.hop.tx", "Bytes sent (mod 2^27)", base.DEC),
    int_hop_ts = ProtoField.uint32("urdma.int.hop.ts", "Timestamp (ns mod 2^24)", base.DEC),
}
urdma.fields = f

-- Extended headers after the BTH, in wire order: name and fixed length (SACK-ETH: without its ranges)
local ORDER = {
    { "ueth", 4 }, { "ts", 8 }, { "deth", 8 }, { "reth", 16 }, { "aeth", 4 }, { "aeth_ext", 12 }, { "sack", 5 },
    { "atomic", 28 }, { "atomic_ack", 8 }, { "immdt", 4 }, { "ieth", 4 }, { "fec", 8 }, { "cbfc", 16 }, { "cnp", 16 },
}

-- Static headers and kind of each opcode (the IBTA rows plus CNP and FEC parity), as urdma's OpcodeTable
local OPCODES = {}
local function def(op, headers, kind, payload)
    local h = {}
    for _, name in ipairs(headers) do h[name] = true end
    OPCODES[op] = { headers = h, kind = kind, payload = payload }
end
for _, t in ipairs({ 0x00, 0x20 }) do
    def(t + 0x00, {}, "send", true)
    def(t + 0x01, {}, "send", true)
    def(t + 0x02, {}, "send", true)
    def(t + 0x03, { "immdt" }, "send", true)
    def(t + 0x04, {}, "send", true)
    def(t + 0x05, { "immdt" }, "send", true)
    def(t + 0x06, { "reth" }, "write", true)
    def(t + 0x07, {}, "write", true)
    def(t + 0x08, {}, "write", true)
    def(t + 0x09, { "immdt" }, "write", true)
    def(t + 0x0A, { "reth" }, "write", true)
    def(t + 0x0B, { "reth", "immdt" }, "write", true)
end
def(0x0C, { "reth" }, "read_request", false)
def(0x0D, { "aeth" }, "read_response", true)
def(0x0E, {}, "read_response", true)
def(0x0F, { "aeth" }, "read_response", true)
def(0x10, { "aeth" }, "read_response", true)
def(0x11, { "aeth" }, "ack", false)
def(0x12, { "aeth", "atomic_ack" }, "ack", false)
def(0x13, { "atomic" }, "atomic", false)
def(0x14, { "atomic" }, "atomic", false)
def(0x16, { "ieth" }, "send", true)
def(0x17, { "ieth" }, "send", true)
def(0x64, { "deth" }, "ud_send", true)
def(0x65, { "deth", "immdt" }, "ud_send", true)
def(0x81, { "cnp" }, "cnp", false)
def(0xC1, { "fec" }, "fec", true)

-- The headers of one packet: the static ones plus the URDMA headers its resv7 and UETH flags announce
local function headers_of(op, resv7, ueth_flags)
    local d = OPCODES[op]
    local h = {}
    for name in pairs(d.headers) do h[name] = true end
    if has(resv7, RESV7_URDMA) then
        h.ueth = true
        if has(ueth_flags, 0x80) then
            h.ts = true
            if h.aeth then h.aeth_ext = true end
        end
        if has(ueth_flags, 0x20) and op % 32 == 0x11 and op < 0x80 then h.sack = true end
        if has(ueth_flags, 0x40) and (d.kind == "write" or d.kind == "read_response" or d.kind == "send") then
            h.reth = true
        end
    end
    return h
end

-- Where the BTH and the end of the transport section (before the ICRC) are, or nil: RoCEv2 (IPv4 or IPv6, UDP 4791,
-- UDP checksum not 0xFFFF, which marks PAXI Standard) or RoCEv1; a VLAN tag may come first
local function locate(tvb)
    local len = tvb:len()
    if len < 14 then return nil end
    local o = 12
    local etype = tvb(o, 2):uint()
    if etype == 0x8100 then
        if len < 18 then return nil end
        o = o + 4
        etype = tvb(o, 2):uint()
    end
    o = o + 2
    local udp, datagram_end
    if etype == 0x0800 then
        if len < o + 20 then return nil end
        local vihl = tvb(o, 1):uint()
        if math.floor(vihl / 16) ~= 4 or tvb(o + 9, 1):uint() ~= 17 then return nil end
        udp = o + (vihl % 16) * 4
        datagram_end = o + tvb(o + 2, 2):uint()
        if vihl % 16 < 5 then return nil end
    elseif etype == 0x86DD then
        if len < o + 40 or tvb(o + 6, 1):uint() ~= 17 then return nil end
        udp = o + 40
        datagram_end = udp + tvb(o + 4, 2):uint()
    elseif etype == 0x8915 then
        if len < o + 40 or tvb(o + 6, 1):uint() ~= 0x1B then return nil end
        return o + 40, o + 40 + tvb(o + 4, 2):uint() - ICRC_LENGTH, false
    else
        return nil
    end
    if len < udp + 8 or tvb(udp + 2, 2):uint() ~= ROCE_PORT or tvb(udp + 6, 2):uint() == 0xFFFF then return nil end
    return udp + 8, datagram_end - ICRC_LENGTH, true
end

local function add_hop(stack_tree, tvb, at, index)
    local hi = tvb(at, 4):uint()
    local lo = tvb(at + 4, 4):uint()
    local code = math.floor(hi / 2 ^ 28)
    local qlen = math.floor(hi / 2 ^ 12) % 2 ^ 16 * INT_UNIT
    local tx = ((hi % 2 ^ 12) * 2 ^ 8 + math.floor(lo / 2 ^ 24)) * INT_UNIT
    local ts = lo % 2 ^ 24
    local rate = RATE_GBPS[code] or 0
    local hop = stack_tree:add(f.int_hop, tvb(at, 8))
    hop:set_text(string.format("Hop %d: rate %s, qlen %d B, tx %d B, t %d ns", index,
        rate > 0 and (rate .. "G") or ("code " .. code), qlen, tx, ts))
    hop:add(f.int_hop_rate_code, tvb(at, 1), code)
    hop:add(f.int_hop_rate, tvb(at, 1), rate)
    hop:add(f.int_hop_qlen, tvb(at, 3), qlen)
    hop:add(f.int_hop_tx, tvb(at + 2, 3), tx)
    hop:add(f.int_hop_ts, tvb(at + 5, 3), ts)
end

local function add_int(tree, tvb, stack)
    local flags = tvb(stack, 1):uint()
    local raw = tvb(stack + 1, 1):uint()
    local hops = math.min(raw, INT_MAX_HOPS)
    local t = tree:add(f.int_stack, tvb(stack, INT_LENGTH))
    t:set_text(string.format("INT stack: %s, %d hop%s", has(flags, 0x80) and "echo" or "stamped", hops,
        hops == 1 and "" or "s"))
    t:add(f.int_flags, tvb(stack, 1))
    t:add(f.int_echo, tvb(stack, 1))
    t:add(f.int_hops, tvb(stack + 1, 1))
    for i = 0, hops - 1 do
        add_hop(t, tvb, stack + 4 + i * 8, i)
    end
    return flags, hops
end

-- Each header's fields; SACK-ETH returns its real length
local ADD = {
    ueth = function(t, tvb, o)
        local u = t:add(f.ueth, tvb(o, 4))
        u:set_text(string.format("UETH: flags 0x%02x", tvb(o, 1):uint()))
        u:add(f.ueth_flags, tvb(o, 1))
        u:add(f.ueth_ts, tvb(o, 1))
        u:add(f.ueth_reth, tvb(o, 1))
        u:add(f.ueth_sack, tvb(o, 1))
        u:add(f.ueth_fec, tvb(o, 1))
    end,
    ts = function(t, tvb, o)
        t:add(f.ts_t1, tvb(o, 4))
        t:add(f.ts_tr, tvb(o + 4, 4))
    end,
    deth = function(t, tvb, o)
        t:add(f.deth_qkey, tvb(o, 4))
        t:add(f.deth_srcqp, tvb(o + 5, 3))
    end,
    reth = function(t, tvb, o)
        t:add(f.reth_va, tvb(o, 8))
        t:add(f.reth_rkey, tvb(o + 8, 4))
        t:add(f.reth_dmalen, tvb(o + 12, 4))
    end,
    aeth = function(t, tvb, o)
        t:add(f.aeth_syndrome, tvb(o, 1))
        t:add(f.aeth_msn, tvb(o + 1, 3))
    end,
    aeth_ext = function(t, tvb, o)
        t:add(f.aeth_ext_t3, tvb(o, 4))
        t:add(f.aeth_ext_ts, tvb(o + 4, 4))
        t:add(f.aeth_ext_psn, tvb(o + 8, 3))
    end,
    atomic = function(t, tvb, o)
        t:add(f.atomic_va, tvb(o, 8))
        t:add(f.atomic_rkey, tvb(o + 8, 4))
        t:add(f.atomic_swap, tvb(o + 12, 8))
        t:add(f.atomic_compare, tvb(o + 20, 8))
    end,
    atomic_ack = function(t, tvb, o) t:add(f.atomic_orig, tvb(o, 8)) end,
    immdt = function(t, tvb, o) t:add(f.immdt, tvb(o, 4)) end,
    ieth = function(t, tvb, o) t:add(f.ieth_rkey, tvb(o, 4)) end,
    fec = function(t, tvb, o)
        t:add(f.fec_base, tvb(o, 3))
        t:add(f.fec_m, tvb(o + 3, 1))
        t:add(f.fec_r, tvb(o + 4, 1))
        t:add(f.fec_index, tvb(o + 5, 1))
        t:add(f.fec_len_xor, tvb(o + 6, 2))
    end,
}

local function add_sack(t, tvb, o, limit)
    local count = tvb(o, 1):uint()
    local length = 5 + 4 * count
    if o + length > limit then return nil end
    local s = t:add(tvb(o, length), string.format("SACK-ETH: cumulative PSN %d, %d range%s", tvb(o + 2, 3):uint(),
        count, count == 1 and "" or "s"))
    s:add(f.sack_count, tvb(o, 1))
    s:add(f.sack_loss, tvb(o + 1, 1))
    s:add(f.sack_cumulative, tvb(o + 2, 3))
    for i = 0, count - 1 do
        local r = o + 5 + 4 * i
        local range = s:add(tvb(r, 4), string.format("Missing: %d PSNs from %d", tvb(r + 3, 1):uint(),
            tvb(r, 3):uint()))
        range:add(f.sack_start, tvb(r, 3))
        range:add(f.sack_length, tvb(r + 3, 1))
    end
    return length
end

function urdma.dissector(tvb, pinfo, tree)
    local bth, section_end, udp = locate(tvb)
    if bth == nil or tvb:len() < bth + 12 or section_end < bth + 12 then return end
    -- a capture cut short (snaplen) ends before the packet does: decode what is there, quietly
    local cut = tvb:len() < section_end + ICRC_LENGTH
    local op = tvb(bth, 1):uint()
    local resv7 = tvb(bth + 8, 1):uint() % 128
    local urdma_headers = has(resv7, RESV7_URDMA)
    local int_stack = udp and has(resv7, RESV7_INT)
    if not (urdma_headers or int_stack) or OPCODES[op] == nil then return end
    local t = tree:add(urdma, tvb(bth, math.min(tvb:len(), section_end) - bth))
    t:add(f.resv7, tvb(bth + 8, 1), resv7)
    local info = {}
    local limit = section_end - (int_stack and INT_LENGTH or 0)
    if urdma_headers or int_stack then
        -- the headers a URDMA packet carries, which the InfiniBand dissector reads as the opcode's standard ones
        local ueth_flags = 0
        if urdma_headers and tvb:len() >= bth + 13 then ueth_flags = tvb(bth + 12, 1):uint() end
        local headers = headers_of(op, resv7, ueth_flags)
        local o = bth + 12
        for _, h in ipairs(ORDER) do
            local name, length = h[1], h[2]
            if headers[name] then
                if o + length > math.min(limit, tvb:len()) then
                    if not cut then
                        t:add_expert_info(PI_MALFORMED, PI_ERROR, "urdma: " .. name .. " runs past the packet")
                    end
                    return
                end
                if name == "sack" then
                    length = add_sack(t, tvb, o, math.min(limit, tvb:len()))
                    if length == nil then
                        if not cut then
                            t:add_expert_info(PI_MALFORMED, PI_ERROR, "urdma: SACK-ETH ranges run past the packet")
                        end
                        return
                    end
                elseif ADD[name] then
                    ADD[name](t, tvb, o)
                end
                o = o + length
            end
        end
        local pad = math.floor(tvb(bth + 1, 1):uint() / 16) % 4
        if OPCODES[op].payload and limit - o >= pad and not cut then
            t:add(f.payload_len, tvb(bth, 12), limit - o - pad)
        end
        if urdma_headers then info[#info + 1] = string.format("UETH 0x%02x", ueth_flags) end
    end
    if int_stack then
        local stack = section_end - INT_LENGTH
        if stack < bth + 12 or section_end > tvb:len() then
            t:add_expert_info(PI_UNDECODED, PI_NOTE, "urdma: the INT stack is not in the capture (short packet or snaplen)")
        else
            local flags, hops = add_int(t, tvb, stack)
            info[#info + 1] = string.format("INT %s hops=%d", has(flags, 0x80) and "echo" or "stamped", hops)
        end
    end
    t:set_text("urdma: " .. table.concat(info, ", "))
    pinfo.cols.info:append(" [urdma " .. table.concat(info, ", ") .. "]")
end

register_postdissector(urdma)
