"""MDF 4 files built byte by byte from the format's block layouts, for
test_mdf_read.py and as the MDF fuzz target's seed (fuzz/CMakeLists.txt):
`measurement()` is the test's file, described there.
Usage as a script: mdf_build.py OUT.mf4"""
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


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as out:
        out.write(measurement().data)
