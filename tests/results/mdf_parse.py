"""MDF 4 files rtcosim wrote, read back block by block as the format lays
them out (little-endian; a block: "##XX", 4 reserved bytes, its length and
link count as uint64, the links, its data): for test_mdf.py and
test_convert_exact.py."""
import struct


def block(data, at, kind):
    """(links, body) of the block of that kind at `at`."""
    ident, length, nlinks = struct.unpack_from("<4s4xQQ", data, at)
    assert ident == b"##" + kind, (ident, kind, at)
    assert at % 8 == 0 and length >= 24 + 8 * nlinks, (kind, at, length)
    links = struct.unpack_from(f"<{nlinks}Q", data, at + 24)
    return links, data[at + 24 + 8 * nlinks:at + length]


def text(data, at):
    if at == 0:
        return None
    _, body = block(data, at, data[at + 2:at + 4])
    return body.split(b"\0", 1)[0].decode()


def read_mf4(path):
    """The channels of a sorted, single-group file: [(name, unit, comment,
    channel type, sync type, values)]; and the HD start time in ns."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:16] == b"MDF     4.10    ", data[:16]
    assert data[16:24] == b"rtcosim ", data[16:24]
    assert struct.unpack_from("<H", data, 28)[0] == 410
    assert struct.unpack_from("<HH", data, 60) == (0, 0)  # finalized
    hd_links, hd = block(data, 64, b"HD")
    start_ns, tz, dst, time_flags = struct.unpack_from("<QhhB", hd)
    assert (tz, dst, time_flags) == (0, 0, 0)  # UTC
    dg_at, fh_at = hd_links[0], hd_links[1]
    fh_links, _ = block(data, fh_at, b"FH")
    assert "<tool_id>rtcosim</tool_id>" in text(data, fh_links[1])
    dg_links, dg = block(data, dg_at, b"DG")
    assert dg_links[0] == 0 and dg[0] == 0  # one data group, no record ids
    cg_links, cg = block(data, dg_links[1], b"CG")
    assert cg_links[0] == 0  # one channel group
    record_id, cycles, flags, _, _, record_bytes, invalid_bytes = struct.unpack_from("<QQHHIII", cg)
    assert (record_id, flags) == (0, 0)
    channels, cn_at = [], cg_links[1]
    while cn_at:
        cn_links, cn = block(data, cn_at, b"CN")
        ctype, sync, dtype, bit_off, byte_off, bits, cflags, inval_pos = \
            struct.unpack_from("<BBBBIIII", cn)
        # integer and Boolean channels have an invalidation bit (flags 2: its
        # position valid) for a value the run could not get; floats use NaN
        assert bool(cflags & 2) == (dtype != 4), (dtype, cflags)
        assert not cflags & 2 or inval_pos < 8 * invalid_bytes, (inval_pos, invalid_bytes)
        # little-endian: 0 unsigned, 2 signed, 4 IEEE float; whole bytes
        assert (dtype, bit_off) in ((0, 0), (2, 0), (4, 0)) and bits in (8, 16, 32, 64), \
            (dtype, bit_off, bits)
        fmt = "<" + {(0, 8): "B", (0, 16): "H", (0, 32): "I", (0, 64): "Q", (2, 8): "b",
                     (2, 16): "h", (2, 32): "i", (2, 64): "q", (4, 32): "f",
                     (4, 64): "d"}[(dtype, bits)]
        channels.append([text(data, cn_links[2]), text(data, cn_links[6]),
                         text(data, cn_links[7]), ctype, sync, (dtype, bits),
                         inval_pos if cflags & 2 else None, byte_off, fmt])
        cn_at = cn_links[0]
    # packed in order, the time first
    offsets = [0]
    for ch in channels:
        offsets.append(offsets[-1] + ch[5][1] // 8)
    assert [ch[7] for ch in channels] == offsets[:-1] and record_bytes == offsets[-1]
    dt_links, dt = block(data, dg_links[2], b"DT")
    stride = record_bytes + invalid_bytes  # the invalidation bytes after the data
    assert dt_links == () and len(dt) == cycles * stride
    for ch in channels:
        fmt, off, inval = ch.pop(), ch.pop(), ch.pop()
        ch.append([None if inval is not None and
                   dt[r * stride + record_bytes + inval // 8] >> inval % 8 & 1
                   else struct.unpack_from(fmt, dt, r * stride + off)[0] for r in range(cycles)])
    return channels, start_ns
