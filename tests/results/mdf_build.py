"""MDF 4 and MDF 3 files built byte by byte from the formats' block layouts,
for test_mdf_read.py and as the MDF fuzz target's seeds (fuzz/CMakeLists.txt):
`measurement()` and `measurement3()` are the test's files, described there.
`tables()` and `tables3()` hold value-table conversions.
`int64s()` 64-bit integer channels (test_convert_exact.py).
Usage as a script: mdf_build.py OUT.mf4 [OUT3.mdf [TABLES.mf4 [TABLES3.mdf [INT64S.mf4]]]]"""
import math
import struct
import sys
import zlib


class Mf4:
    def __init__(self, ident=b"MDF     4.10    ", version=410):
        self.data = bytearray(ident + b"handmade" + bytes(4) + struct.pack("<H", version) + bytes(34))

    def block(self, kind, links, body):
        """A block at the next 8-byte boundary, its length without the fill."""
        self.data += bytes(-len(self.data) % 8)
        at = len(self.data)
        body = bytes(body)
        self.data += b"##" + kind + bytes(4) + struct.pack("<QQ", 24 + 8 * len(links) + len(body),
                                                           len(links))
        self.data += struct.pack(f"<{len(links)}Q", *links) + body
        return at

    def link(self, block_at, k, target):
        struct.pack_into("<Q", self.data, block_at + 24 + 8 * k, target)

    def text(self, kind, s):
        return self.block(kind, [], s.encode() + b"\0")


def channel(f, name, ctype, dtype, byte_off, bits, bit_off=0, flags=0, inval_pos=0, unit=0, cc=0):
    name_at = f.text(b"TX", name)
    body = struct.pack("<BBBBIIIIBBH6d", ctype, 1 if ctype == 2 else 0, dtype, bit_off, byte_off,
                       bits, flags, inval_pos, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return f.block(b"CN", [0, 0, name_at, 0, cc, 0, unit, 0], body)


def chain(f, cns):
    for a, b in zip(cns, cns[1:]):
        f.link(a, 0, b)
    return cns[0]


def channel_group(f, record_id, cycles, data_bytes, inval_bytes, first_cn):
    return f.block(b"CG", [0, first_cn, 0, 0, 0, 0],
                   struct.pack("<QQHHIII", record_id, cycles, 0, 0, 0, data_bytes, inval_bytes))


def dz(f, raw, zip_type=0, columns=0):
    if zip_type == 1:  # transposed: the whole lines column by column, the rest as is
        lines = len(raw) // columns
        whole = bytes(raw[i * columns + j] for j in range(columns) for i in range(lines))
        raw = whole + raw[lines * columns:]
    packed = zlib.compress(raw)
    return f.block(b"DZ", [], b"DT" + bytes([zip_type, 0]) + struct.pack("<IQQ", columns,
                   len(raw) if zip_type == 0 else len(raw), len(packed)) + packed)


def measurement():
    f = Mf4()
    hd = f.block(b"HD", [0] * 6, bytes(32))
    # group 1 (id 1): time f64 @0, Float64_continuous_input u16 @8 (-1 + 0.5 x, V), a string
    unit = f.text(b"TX", "V")
    cc = f.block(b"CC", [0, 0, 0, 0], struct.pack("<BBHHH2d2d", 1, 0, 0, 0, 2, 0, 0, -1.0, 0.5))
    g1 = channel_group(f, 1, 4, 14, 0, chain(f, [
        channel(f, "time", 2, 4, 0, 64),
        channel(f, "Float64_continuous_input", 0, 0, 8, 16, unit=unit, cc=cc),
        channel(f, "label", 0, 7, 10, 32)]))
    # group 2 (id 2): time f32 @0, Float64_discrete_input int16 big-endian @4, invalidation bit 0
    g2 = channel_group(f, 2, 3, 6, 1, chain(f, [
        channel(f, "time", 2, 4, 0, 32),
        channel(f, "Float64_discrete_input", 0, 3, 4, 16, flags=2, inval_pos=0)]))
    f.link(g1, 0, g2)
    rec1 = lambda t, raw: b"\x01" + struct.pack("<dH", t, raw) + b"abcd"
    rec2 = lambda t, v, invalid: b"\x02" + struct.pack("<f", t) + struct.pack(">h", v) + \
        bytes([invalid])
    records = [rec1(0.0, 2), rec2(0.0625, -3, 0), rec1(0.125, 4), rec1(0.25, 6),
               rec2(0.3125, 7, 1), rec1(0.375, 8), rec2(0.4375, 100, 0)]
    first, rest = b"".join(records[:3]), b"".join(records[3:])
    dl = f.block(b"DL", [0, f.block(b"DT", [], first), dz(f, rest)],
                 struct.pack("<B3xI", 0, 2) + struct.pack("<2Q", 0, len(first)))
    dg1 = f.block(b"DG", [0, g1, dl, 0], bytes([1]) + bytes(7))
    # a sorted group: time f64, Int32_input = bits 2..5 of byte 8, behind HL -> DL -> DZ
    g3 = channel_group(f, 0, 3, 9, 0, chain(f, [
        channel(f, "time", 2, 4, 0, 64),
        channel(f, "Int32_input", 0, 0, 8, 4, bit_off=2)]))
    raw = b"".join(struct.pack("<dB", t, v << 2 | 0b11) for t, v in ((0.0, 5), (0.1875, 10),
                                                                     (0.375, 15)))
    dl3 = f.block(b"DL", [0, dz(f, raw, 1, 9)], struct.pack("<B3xI", 0, 1) + struct.pack("<Q", 0))
    hl = f.block(b"HL", [dl3], struct.pack("<HB5x", 0, 1))
    dg2 = f.block(b"DG", [0, g3, hl, 0], bytes(8))
    f.link(dg1, 0, dg2)
    f.link(hd, 0, dg1)
    return f


class Mdf3:
    """MDF 3.30, little-endian: a block is two letters, its length (uint16),
    then its fields; links are uint32 file offsets."""

    def __init__(self, version=330, order=0, floats=0):
        text = f"{version // 100}.{version % 100:02d}    ".encode()
        self.data = bytearray(b"MDF     " + text + b"handmade" +
                              struct.pack("<4H", order, floats, version, 0) + bytes(32))

    def block(self, kind, fields):
        at = len(self.data)
        self.data += kind + struct.pack("<H", 4 + len(fields)) + fields
        return at

    def link(self, block_at, offset, target):
        struct.pack_into("<I", self.data, block_at + offset, target)

    def text(self, s):
        return self.block(b"TX", s.encode("latin-1") + b"\0")


def cc3(f, ctype, params, unit="", count=None):
    """count: the parameter count the block states (a table's: its pairs)."""
    return f.block(b"CC", struct.pack("<H2d20sHH", 0, 0, 0, unit.encode("latin-1"), ctype,
                                      len(params) if count is None else count) +
                   struct.pack(f"<{len(params)}d", *params))


def cn3(f, name, ctype, dtype, first_bit, bits, cc=0, long_name=None, extra_bytes=None):
    """A CN block: 218 bytes, 222 with a long name, 228 with an additional
    byte offset."""
    body = struct.pack("<5IH32s128s4H3d", 0, cc, 0, 0, 0, ctype, name.encode("latin-1"), b"",
                       first_bit, bits, dtype, 0, 0, 0, 0)
    if long_name is not None or extra_bytes is not None:
        body += struct.pack("<I", f.text(long_name) if long_name else 0)
    if extra_bytes is not None:
        body += struct.pack("<IH", 0, extra_bytes)
    return f.block(b"CN", body)


def chain3(f, blocks):
    for a, b in zip(blocks, blocks[1:]):
        f.link(a, 4, b)
    return blocks[0]


def cg3(f, record_id, record_bytes, records, first_cn, channels):
    return f.block(b"CG", struct.pack("<3I3HI", 0, first_cn, 0, record_id, channels, record_bytes,
                                      records))


def dg3(f, first_cg, data_at, groups, ids):
    return f.block(b"DG", struct.pack("<4I2H4s", 0, first_cg, 0, data_at, groups, ids, b""))


START_NS = 1767323045 * 10**9  # 2026-01-02 03:04:05 UTC


def measurement3(version=330):
    """From 3.20 the header holds the start in ns since 1970 UTC, before only
    its local date and time."""
    f = Mdf3(version)
    common = struct.pack("<3IH10s8s32s32s32s32s", 0, 0, 0, 2, b"02:01:2026", b"04:04:05", b"",
                         b"", b"", b"")
    hd = f.block(b"HD", common + (struct.pack("<QhH32s", START_NS, 1, 0, b"")
                                  if version >= 320 else b""))
    # a sorted group: time double, Float64_continuous_input uint16 (-1 + 0.5 x, V) under a
    # short name, its long name in a TX block
    lin = cc3(f, 0, [-1.0, 0.5], "V")
    g1 = cg3(f, 0, 10, 4, chain3(f, [
        cn3(f, "time", 1, 3, 0, 64),
        cn3(f, "Float64_cont", 0, 0, 64, 16, cc=lin, long_name="Float64_continuous_input")]), 2)
    rows1 = b"".join(struct.pack("<dH", t, raw) for t, raw in
                     ((0.0, 2), (0.125, 4), (0.25, 6), (0.375, 8)))
    at1 = len(f.data)
    f.data += rows1
    dga = dg3(f, g1, at1, 1, 0)
    # an unsorted group, a record id before and after each record: (1) time float32,
    # Float64_discrete_input int16 Motorola, a string (left out); (2) time uint32 ticks of
    # 1/16 s by a polynomial conversion (unit s), Int32_input = bits 2..5 of byte 4
    # (an additional byte offset of 4)
    poly = cc3(f, 6, [-16.0, 0.0, 0.0, -1.0, 0.0, 0.0], "s")
    ga = cg3(f, 1, 10, 2, chain3(f, [
        cn3(f, "time", 1, 2, 0, 32),
        cn3(f, "Float64_discrete_input", 0, 10, 32, 16),
        cn3(f, "label", 0, 7, 48, 32)]), 3)
    gb = cg3(f, 2, 5, 3, chain3(f, [
        cn3(f, "time", 1, 13, 0, 32, cc=poly),
        cn3(f, "Int32_input", 0, 0, 2, 4, extra_bytes=4)]), 2)
    f.link(ga, 4, gb)
    ra = lambda t, v: b"\x01" + struct.pack("<f", t) + struct.pack(">h", v) + b"abcd" + b"\x01"
    rb = lambda tick, v: b"\x02" + struct.pack("<IB", tick, v << 2 | 0b11) + b"\x02"
    rows2 = b"".join([rb(0, 5), ra(0.0625, -3), rb(3, 10), rb(6, 15), ra(0.4375, 100)])
    at2 = len(f.data)
    f.data += rows2
    dgb = dg3(f, ga, at2, 2, 2)
    f.link(dga, 4, dgb)
    f.link(hd, 4, dga)
    return f


TABLE_KEYS = [1, 10, 3, 30, 5, 0]          # interpolated: 10 20 30 15 0 between and clamped
NEAREST_KEYS = [1, 10, 3, 30, 6, 60]       # the nearest key's value, the lower on a tie
RANGES = [0, 1, -1, 2, 4, -2, 5, 5, -5]    # integer raw values: [lower, upper]; default 99


def tables():
    """MDF 4: raw uint8 0..7 at k/16 s through a value table with interpolation,
    one without and a range table."""
    f = Mf4()
    hd = f.block(b"HD", [0] * 6, bytes(32))
    cc = lambda kind, vals: f.block(b"CC", [0, 0, 0, 0], struct.pack(
        "<BBHHH2d", kind, 0, 0, 0, len(vals), 0, 0) + struct.pack(f"<{len(vals)}d", *vals))
    g = channel_group(f, 0, 8, 11, 0, chain(f, [
        channel(f, "time", 2, 4, 0, 64),
        channel(f, "Float64_continuous_input", 0, 0, 8, 8, cc=cc(4, TABLE_KEYS)),
        channel(f, "Float64_discrete_input", 0, 0, 9, 8, cc=cc(5, NEAREST_KEYS)),
        channel(f, "Int32_input", 0, 0, 10, 8, cc=cc(6, RANGES + [99]))]))
    dt = f.block(b"DT", [], b"".join(struct.pack("<d3B", k / 16, k, k, k) for k in range(8)))
    f.link(hd, 0, f.block(b"DG", [0, g, dt, 0], bytes(8)))
    return f


def tables3():
    """MDF 3: the same raw values through MDF 3's tables with and without
    interpolation, and a linear 100 - x."""
    f = Mdf3()
    hd = f.block(b"HD", struct.pack("<3IH10s8s32s32s32s32s", 0, 0, 0, 1, b"", b"", b"", b"", b"",
                                    b""))
    g = cg3(f, 0, 11, 8, chain3(f, [
        cn3(f, "time", 1, 3, 0, 64),
        cn3(f, "Float64_continuous_input", 0, 0, 64, 8, cc=cc3(f, 1, TABLE_KEYS, count=3)),
        cn3(f, "Float64_discrete_input", 0, 0, 72, 8, cc=cc3(f, 2, NEAREST_KEYS, count=3)),
        cn3(f, "Int32_input", 0, 0, 80, 8, cc=cc3(f, 0, [100.0, -1.0]))]), 4)
    at = len(f.data)
    f.data += b"".join(struct.pack("<d3B", k / 16, k, k, k) for k in range(8))
    f.link(hd, 4, dg3(f, g, at, 1, 0))
    return f


def with_pole():
    """MDF 4: Float64_continuous_input 0, 1, 2, 3 at k/16 s beside a channel
    whose second sample is -inf (a hyperbolic conversion at its pole)."""
    f = Mf4()
    hd = f.block(b"HD", [0] * 6, bytes(32))
    g = channel_group(f, 0, 4, 24, 0, chain(f, [
        channel(f, "time", 2, 4, 0, 64),
        channel(f, "Float64_continuous_input", 0, 4, 8, 64),
        channel(f, "hyperbolic", 0, 4, 16, 64)]))
    dt = f.block(b"DT", [], b"".join(struct.pack("<3d", k / 16, k, -math.inf if k == 1 else k / 2)
                                     for k in range(4)))
    f.link(hd, 0, f.block(b"DG", [0, g, dt, 0], bytes(8)))
    return f


INT64S_I = [2**53 + 1, -2**63, 2**63 - 1]  # (a double keeps 53 bits)
INT64S_U = [2**64 - 1, 2**63, 0]
INT64S_B = [-(2**53) - 1, 1, 2**62 + 1]


def int64s(inval=None, linear=False):
    """MDF 4, one sorted group of 3 records at 0, 0.5, 1 s: time (f64), i
    (int64 LE) INT64S_I, u (uint64 LE) INT64S_U, b (int64 big-endian)
    INT64S_B; inval: the record whose i is marked invalid (flags 2, bit 0);
    linear: i read through 0 + 2 x."""
    f = Mf4()
    hd = f.block(b"HD", [0] * 6, bytes(32))
    cc = f.block(b"CC", [0, 0, 0, 0],
                 struct.pack("<BBHHH2d2d", 1, 0, 0, 0, 2, 0, 0, 0.0, 2.0)) if linear else 0
    g = channel_group(f, 0, 3, 32, 1 if inval is not None else 0, chain(f, [
        channel(f, "time", 2, 4, 0, 64),
        channel(f, "i", 0, 2, 8, 64, flags=2 if inval is not None else 0, cc=cc),
        channel(f, "u", 0, 0, 16, 64),
        channel(f, "b", 0, 3, 24, 64)]))
    data = b""
    for r in range(3):
        data += struct.pack("<dqQ", 0.5 * r, INT64S_I[r], INT64S_U[r]) + \
            struct.pack(">q", INT64S_B[r])
        if inval is not None:
            data += bytes([1 if r == inval else 0])
    f.link(hd, 0, f.block(b"DG", [0, g, f.block(b"DT", [], data), 0], bytes(8)))
    return f


if __name__ == "__main__":
    for path, build in zip(sys.argv[1:], (measurement, measurement3, tables, tables3,
                                          lambda: int64s(inval=1))):
        with open(path, "wb") as out:
            out.write(build().data)
