"""ASAM MDF 4 CAN bus logs built byte by byte, in layouts other than the one
rtcosim writes (what loggers write: unsorted data groups, variable-length
DataBytes, a remote-frame and an error-frame group, bit 31 of ID for an
extended identifier), for test_can_log_mdf.py and as the CAN log fuzz
target's seeds. Block layouts as tests/results/mdf_build.py's.

`logger()`: one unsorted data group (1-byte record ids) of
  id 1 CAN_DataFrame: master time uint32 of 10 us ticks (a linear
     conversion), BusChannel uint8, ID uint32 (bit 31: extended), DLC 4 bits
     and EDL, BRS bits in one byte, DataLength uint8, DataBytes a
     variable-length byte array in an SD block (the record: its offset);
  id 2 CAN_RemoteFrame: time, ID, DLC;
  id 3 CAN_ErrorFrame: time, ID (counted, not frames);
and a second data group, MDF 4.2's way: id 1 CAN_DataFrame whose DataBytes
lie in the records of a VLSD channel group (id 2) of the same data group,
no DataLength (the length from DLC), a double time, BusChannel last.
asammdf 8.0 reads the same frames from this file (outside the suite).
`FRAMES`: the frames by hand, as candump -l lines (remote ones left out, as
`can convert` leaves them) in time order.
`long_logger(n)`: n frames over two data groups cut into many blocks (its docstring).
Usage as a script: mdf_bus_build.py OUT.mf4 [ATTACHED.mf4 [LONG_PREFIX]] (LONG_PREFIX:
three short long_logger files, blocks of 61 bytes, for the fuzz target's seeds)"""
import os
import struct
import sys
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results"))
from mdf_build import Mf4, chain, channel, channel_group, dz  # noqa: E402


def cn(f, name, ctype, dtype, byte_off, bits, bit_off=0, comp=0, data=0, cc=0):
    name_at = f.text(b"TX", name)
    body = struct.pack("<BBBBIIIIBBH6d", ctype, 1 if ctype == 2 else 0, dtype, bit_off, byte_off,
                       bits, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return f.block(b"CN", [0, comp, name_at, 0, cc, data, 0, 0], body)


def cg(f, record_id, cycles, data_bytes, first_cn, flags=0, source=0):
    return f.block(b"CG", [0, first_cn, 0, source, 0, 0],
                   struct.pack("<QQHHIII", record_id, cycles, flags, ord("."), 0, data_bytes, 0))


def structure(f, name, byte_off, bits, fields):
    """The structure channel `name` whose components are fields (CN blocks)."""
    return cn(f, name, 0, 10, byte_off, bits, comp=chain(f, fields))


# (time s, bus channel, id, extended, fd, brs, dlc, data): the logger's data frames
DATA1 = [(0.00125, 1, 0x123, False, False, False, 8, bytes(range(1, 9))),
         (0.00250, 2, 0x1ABCDEF0, True, False, False, 3, b"\xaa\xbb\xcc"),
         (0.00400, 1, 0x456, False, True, True, 9, bytes(range(12))),
         (0.00500, 1, 0x7FF, False, False, False, 0, b"")]
# (time, id, dlc): its remote frames; (time, id): its error frames
REMOTE = [(0.00300, 0x321, 2)]
ERRORS = [(0.00350, 0x0)]
# the second data group's frames: (time, id, extended, fd, dlc, data)
DATA2 = [(0.00200, 0x0C0, False, False, 2, b"\x01\x02"),
         (0.00450, 0x18FF0001, True, True, 10, bytes(range(16)))]


# signals logged beside the frames (logger(signals=True): a third data group, as CANape
# and CANoe log both into one file): (time s, EngineSpeed rpm)
SIGNALS = [(0.0, 800.0), (0.1, 1500.5), (0.2, 1200.0)]


def logger(signals=False):
    f = Mf4(version=411, ident=b"MDF     4.11    ")
    hd = f.block(b"HD", [0] * 6, struct.pack("<QhhBBBBdd", 1764460800 * 10**9, 0, 0, 0, 0, 0, 0,
                                             0.0, 0.0))
    si = f.block(b"SI", [f.text(b"TX", "CAN"), 0, 0], bytes([2, 2, 0]) + bytes(5))
    tick = f.block(b"CC", [0, 0, 0, 0], struct.pack("<BBHHH2d2d", 1, 0, 0, 0, 2, 0, 0, 0.0, 1e-5))
    # the variable-length data: each a uint32 length and the bytes, in an SD block
    sd, offsets = b"", []
    for *_, data in DATA1:
        offsets.append(len(sd))
        sd += struct.pack("<I", len(data)) + data
    sd_at = f.block(b"SD", [], sd)
    # id 1: time u32 @0, BusChannel @4, ID @5, DLC bits 0-3 / EDL bit 4 / BRS bit 5 @9,
    # DataLength @10, DataBytes offset u64 @11: 19 bytes
    frame1 = structure(f, "CAN_DataFrame", 4, 8 * 15, [
        cn(f, "CAN_DataFrame.BusChannel", 0, 0, 4, 8),
        cn(f, "CAN_DataFrame.ID", 0, 0, 5, 32),
        cn(f, "CAN_DataFrame.DLC", 0, 0, 9, 4),
        cn(f, "CAN_DataFrame.EDL", 0, 0, 9, 1, bit_off=4),
        cn(f, "CAN_DataFrame.BRS", 0, 0, 9, 1, bit_off=5),
        cn(f, "CAN_DataFrame.DataLength", 0, 0, 10, 8),
        cn(f, "CAN_DataFrame.DataBytes", 1, 10, 11, 64, data=sd_at)])
    time1 = cn(f, "t", 2, 0, 0, 32, cc=tick)
    g1 = cg(f, 1, len(DATA1), 19, chain(f, [time1, frame1]), flags=6, source=si)
    remote = structure(f, "CAN_RemoteFrame", 4, 8 * 5, [
        cn(f, "CAN_RemoteFrame.ID", 0, 0, 4, 32), cn(f, "CAN_RemoteFrame.DLC", 0, 0, 8, 4)])
    g2 = cg(f, 2, len(REMOTE), 9, chain(f, [cn(f, "t", 2, 0, 0, 32, cc=tick), remote]), 6, si)
    error = structure(f, "CAN_ErrorFrame", 4, 32, [cn(f, "CAN_ErrorFrame.ID", 0, 0, 4, 32)])
    g3 = cg(f, 3, len(ERRORS), 8, chain(f, [cn(f, "t", 2, 0, 0, 32, cc=tick), error]), 6, si)
    chain(f, [g1, g2, g3])
    records = []
    for (t, bus, ident, ext, fd, brs, dlc, _), off in zip(DATA1, offsets):
        raw = ident | (0x80000000 if ext else 0)
        records.append((t, b"\x01" + struct.pack("<IBIBBQ", round(t / 1e-5), bus, raw,
                                                 dlc | fd << 4 | brs << 5, len(_), off)))
    records += [(t, b"\x02" + struct.pack("<IIB", round(t / 1e-5), ident, dlc))
                for t, ident, dlc in REMOTE]
    records += [(t, b"\x03" + struct.pack("<II", round(t / 1e-5), ident)) for t, ident in ERRORS]
    records.sort(key=lambda r: r[0])
    dg1 = f.block(b"DG", [0, g1, f.block(b"DT", [], b"".join(r for _, r in records)), 0],
                  bytes([1]) + bytes(7))
    # the second data group: DataBytes in a VLSD channel group's records
    vlsd = cg(f, 2, len(DATA2), 0, 0, flags=1)
    frame2 = structure(f, "CAN_DataFrame", 8, 8 * 15, [
        cn(f, "CAN_DataFrame.ID", 0, 0, 8, 32),
        cn(f, "CAN_DataFrame.IDE", 0, 0, 12, 1),
        cn(f, "CAN_DataFrame.EDL", 0, 0, 12, 1, bit_off=1),
        cn(f, "CAN_DataFrame.DLC", 0, 0, 13, 4),
        cn(f, "CAN_DataFrame.DataBytes", 1, 10, 14, 64, data=vlsd),
        cn(f, "CAN_DataFrame.BusChannel", 0, 0, 22, 8)])
    g4 = cg(f, 1, len(DATA2), 23, chain(f, [cn(f, "Timestamp", 2, 4, 0, 64), frame2]), 6, si)
    f.link(g4, 0, vlsd)
    data, offset = b"", 0
    for t, ident, ext, fd, dlc, payload in DATA2:
        data += b"\x02" + struct.pack("<I", len(payload)) + payload
        data += b"\x01" + struct.pack("<dIBBQB", t, ident, ext | fd << 1, dlc, offset, 1)
        offset += 4 + len(payload)
    dg2 = f.block(b"DG", [0, g4, f.block(b"DT", [], data), 0], bytes([1]) + bytes(7))
    f.link(dg1, 0, dg2)
    if signals:
        rpm = f.text(b"TX", "rpm")
        g5 = channel_group(f, 0, len(SIGNALS), 16, 0, chain(f, [
            channel(f, "t", 2, 4, 0, 64), channel(f, "EngineSpeed", 0, 4, 8, 64, unit=rpm)]))
        dt = f.block(b"DT", [], b"".join(struct.pack("<dd", t, v) for t, v in SIGNALS))
        f.link(dg2, 0, f.block(b"DG", [0, g5, dt, 0], bytes(8)))
    f.link(hd, 0, dg1)
    return f


# python-can's MF4Writer's way (its can/io/mf4.py, on asammdf): a sorted data group of
# CAN_DataFrame records (BusChannel from the interface's number: 0 for can0, ID with IDE
# beside it, DataBytes 64 fixed bytes, DataLength), the measurement started when the file
# was opened, so that frames logged before it have negative times
START = 1764460800  # s since 1970 UTC, the file's start (2025-11-30 00:00:00)
EARLY = [(-3600.0 + 0.25, 0, 0x100, False, b"\x01"), (-3600.0 + 0.5, 1, 0x200, True, b"\x02\x03")]


def python_can_style():
    f = Mf4()
    hd = f.block(b"HD", [0] * 6, struct.pack("<QhhBBBBdd", START * 10**9, 0, 0, 0, 0, 0, 0,
                                             0.0, 0.0))
    si = f.block(b"SI", [0, 0, 0], bytes([2, 2, 0]) + bytes(5))
    # time f64 @0, BusChannel @8, ID u32 @9, IDE @13, DLC @14, DataLength @15, DataBytes @16
    frame = structure(f, "CAN_DataFrame", 8, 8 * 72, [
        cn(f, "CAN_DataFrame.BusChannel", 0, 0, 8, 8), cn(f, "CAN_DataFrame.ID", 0, 0, 9, 32),
        cn(f, "CAN_DataFrame.IDE", 0, 0, 13, 8), cn(f, "CAN_DataFrame.DLC", 0, 0, 14, 8),
        cn(f, "CAN_DataFrame.DataLength", 0, 0, 15, 8),
        cn(f, "CAN_DataFrame.DataBytes", 0, 10, 16, 8 * 64)])
    g = cg(f, 0, len(EARLY), 80, chain(f, [cn(f, "timestamps", 2, 4, 0, 64), frame]), 6, si)
    data = b"".join(struct.pack("<dBIBBB", t, bus, ident, ext, len(d), len(d)) + d.ljust(64, b"\0")
                    for t, bus, ident, ext, d in EARLY)
    dg = f.block(b"DG", [0, g, f.block(b"DT", [], data), 0], bytes(8))
    f.link(hd, 0, dg)
    return f


def long_frames(n):
    """n frames for long_logger: (time s, group 0 or 1, id, extended, data) in time order,
    the two groups' frames interleaved (group 0 every 3rd), lengths 0-8."""
    out = []
    for i in range(n):
        g = 0 if i % 3 == 0 else 1
        ident = (0x18DA00F1 + (i % 7)) if g == 0 and i % 2 else 0x100 + (i * 37) % 0x700
        out.append((i * 1e-4, g, ident, ident > 0x7FF,
                    bytes((i * 7 + k) & 0xFF for k in range((i * 5) % 9))))
    return out


def long_logger(n, back=False, shuffle=False, block=997, frames=None):
    """A long log over two data groups, as a logger writes one file after another block:
    data group 1 unsorted (1-byte record ids), CAN_DataFrame records (id 1: time f64, ID
    u32, DLC, DataBytes in the records of the VLSD channel group id 2, BusChannel 1) cut
    into DT blocks of `block` bytes (records cross their ends), every third one deflated (DZ),
    listed by two DL blocks; data group 2 sorted, CAN_DataFrame records (time, ID, IDE,
    DLC, DataLength, 8 fixed DataBytes; no BusChannel) in one DZ block, transposed.
    back: each pair of frames' VLSD records written in reverse (the second frame's data
    first), so records point back into the variable-length data. shuffle: data group
    2's records out of time order (pairs swapped). frames: others than long_frames(n)'s.
    Returns the file and its frames."""
    frames = long_frames(n) if frames is None else frames
    f = Mf4(version=411, ident=b"MDF     4.11    ")
    hd = f.block(b"HD", [0] * 6, struct.pack("<QhhBBBBdd", START * 10**9, 0, 0, 0, 0, 0, 0,
                                             0.0, 0.0))
    si = f.block(b"SI", [0, 0, 0], bytes([2, 2, 0]) + bytes(5))
    vlsd = cg(f, 2, 0, 0, 0, flags=1)
    frame = structure(f, "CAN_DataFrame", 8, 8 * 14, [
        cn(f, "CAN_DataFrame.ID", 0, 0, 8, 32), cn(f, "CAN_DataFrame.DLC", 0, 0, 12, 8),
        cn(f, "CAN_DataFrame.DataBytes", 1, 10, 13, 64, data=vlsd),
        cn(f, "CAN_DataFrame.BusChannel", 0, 0, 21, 8)])
    g1 = cg(f, 1, 0, 22, chain(f, [cn(f, "Timestamp", 2, 4, 0, 64), frame]), 6, si)
    f.link(g1, 0, vlsd)
    ones = [fr for fr in frames if fr[1] == 0]
    data, offset = bytearray(), 0
    for k in range(0, len(ones), 2):
        pair = ones[k:k + 2]
        offs = []
        for t, _, ident, ext, payload in (pair[::-1] if back else pair):
            data += b"\x02" + struct.pack("<I", len(payload)) + payload
            offs.append(offset)
            offset += 4 + len(payload)
        if back:
            offs.reverse()
        for (t, _, ident, ext, payload), off in zip(pair, offs):
            data += b"\x01" + struct.pack("<dIBQB", t, ident | (0x80000000 if ext else 0),
                                          len(payload), off, 1)
    blocks = []
    for k, at in enumerate(range(0, len(data), block)):
        piece = bytes(data[at:at + block])
        blocks.append(dz(f, piece) if k % 3 == 2 else f.block(b"DT", [], piece))
    half = len(blocks) // 2
    dl2 = f.block(b"DL", [0] + blocks[half:], struct.pack("<B3xI", 0, len(blocks) - half) +
                  b"".join(struct.pack("<Q", 0) for _ in blocks[half:]))
    dl1 = f.block(b"DL", [dl2] + blocks[:half], struct.pack("<B3xI", 0, half) +
                  b"".join(struct.pack("<Q", 0) for _ in blocks[:half]))
    dg1 = f.block(b"DG", [0, g1, dl1, 0], bytes([1]) + bytes(7))
    frame2 = structure(f, "CAN_DataFrame", 8, 8 * 15, [
        cn(f, "CAN_DataFrame.ID", 0, 0, 8, 32), cn(f, "CAN_DataFrame.IDE", 0, 0, 12, 8),
        cn(f, "CAN_DataFrame.DLC", 0, 0, 13, 8), cn(f, "CAN_DataFrame.DataLength", 0, 0, 14, 8),
        cn(f, "CAN_DataFrame.DataBytes", 0, 10, 15, 64)])
    twos = [fr for fr in frames if fr[1] == 1]
    if shuffle:
        for k in range(0, len(twos) - 1, 2):
            twos[k], twos[k + 1] = twos[k + 1], twos[k]
    g2 = cg(f, 0, len(twos), 23, chain(f, [cn(f, "Timestamp", 2, 4, 0, 64), frame2]), 6, si)
    recs = b"".join(struct.pack("<dIBBB", t, ident, ext, len(p), len(p)) + p.ljust(8, b"\0")
                    for t, _, ident, ext, p in twos)
    dg2 = f.block(b"DG", [0, g2, dz(f, recs, 1, 23), 0], bytes(8))
    f.link(dg1, 0, dg2)
    f.link(hd, 0, dg1)
    return f, frames


def many_groups(n):
    """One unsorted data group (2-byte record ids) of n CAN_DataFrame channel groups (time
    f64, ID, DLC), one record each."""
    f = Mf4()
    hd = f.block(b"HD", [0] * 6, struct.pack("<QhhBBBBdd", START * 10**9, 0, 0, 0, 0, 0, 0,
                                             0.0, 0.0))
    groups = []
    for k in range(n):
        frame = structure(f, "CAN_DataFrame", 8, 8 * 5, [
            cn(f, "CAN_DataFrame.ID", 0, 0, 8, 32), cn(f, "CAN_DataFrame.DLC", 0, 0, 12, 8)])
        groups.append(cg(f, k + 1, 1, 13, chain(f, [cn(f, "t", 2, 4, 0, 64), frame]), 6))
    chain(f, groups)
    data = b"".join(struct.pack("<HdIB", k + 1, k * 1e-3, 0x100 + k % 0x700, 0) for k in range(n))
    f.link(hd, 0, f.block(b"DG", [0, groups[0], f.block(b"DT", [], data), 0], bytes([2]) + bytes(7)))
    return f


def long_line(t, g, ident, ext, payload):
    """A long_logger frame as `can convert` writes it to candump -l (both groups' frames on
    can0: bus channel 1 is CAN1, and a group without BusChannel is on the first bus)."""
    idt = f"{ident:08X}" if ext else f"{ident:03X}"
    us = round(t * 1e6)
    return f"({us // 10**6:010d}.{us % 10**6:06d}) can0 {idt}#{payload.hex().upper()}"


def attach(f, name, data, compressed):
    """An embedded attachment (AT block: links next, file name, MIME type, comment;
    flags 1 embedded | 2 deflate-compressed, creator, reserved, MD5, original and
    embedded sizes, the data) first in HD's attachment list (its link 3)."""
    body = zlib.compress(data) if compressed else data
    at = f.block(b"AT", [0, f.text(b"TX", name), f.text(b"TX", "application/x-dbc"), 0],
                 struct.pack("<HHI16sQQ", 1 | (2 if compressed else 0), 0, 0, bytes(16),
                             len(data), len(body)) + body)
    f.link(64, 3, at)
    return at


def candump_line(t, bus, ident, ext, fd, brs, data):
    idt = f"{ident:08X}" if ext else f"{ident:03X}"
    body = f"#{1 if brs else 0:X}" + data.hex().upper() if fd else data.hex().upper()
    return f"({0:010d}.{round(t * 1e6):06d}) can{bus - 1} {idt}#{body}"


FRAMES = sorted([(t, candump_line(t, bus, i, e, fd, brs, d)) for t, bus, i, e, fd, brs, _, d in DATA1] +
                [(t, candump_line(t, 1, i, e, fd, False, d)) for t, i, e, fd, _, d in DATA2])


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as out:
        out.write(logger().data)
    if len(sys.argv) > 2:  # and one with a compressed DBC attached
        f = logger()
        attach(f, "rig.dbc", b"BO_ 291 M123: 8 N\n SG_ B0 : 0|8@1+ (1,0) [0|255] \"\" X\n", True)
        with open(sys.argv[2], "wb") as out:
            out.write(f.data)
    if len(sys.argv) > 3:
        for name, kw in (("", {}), ("_back", {"back": True}), ("_shuffled", {"shuffle": True})):
            with open(sys.argv[3] + name + ".mf4", "wb") as out:
                out.write(long_logger(24, block=61, **kw)[0].data)
