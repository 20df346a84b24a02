"""CAN bus logs as ASAM MDF 4 files, end to end through the CLI.

Read: a logger's file built byte by byte (mdf_bus_build.py: unsorted data
groups, DataBytes in an SD block and in a VLSD channel group, bit 31 of ID
for an extended identifier, a remote-frame and an error-frame group, a
master with a conversion) gives the frames written there by hand, per bus,
in time order (`can convert` to candump -l), and `info` lists them; a file
in python-can's MF4Writer layout (bus channels from 0, frames before the
measurement's start) gives its frames at their times since 1970.
A long log in a logger's layout (many DT and DZ blocks, two data groups)
streams in little memory and gives its frames merged by time.
Written: `rtcosim events --can-log F.mf4` is checked block by block against
the bus-logging layout (this file's own reader of MDF 4 blocks, not
rtcosim's), and holds the frames of the candump log of the same run; CAN
FD and extended frames survive candump -> MDF -> candump; a replay of the
MDF log runs as the candump log's. (asammdf 8.0 decodes the written logs
with a DBC as `rtcosim can decode` does and reads the hand-built one as
here; python-can's MF4Reader reads the written ones and its MF4Writer's
files read here: outside the suite, src/can/README.md.) Bad files get one
line.
Usage: test_can_log_mdf.py RTCOSIM"""
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdf_bus_build import (EARLY, FRAMES, START, attach, logger, long_line,  # noqa: E402
                           long_logger, many_groups, python_can_style)

rtcosim = sys.argv[1]
with open(rtcosim, "rb") as exe:
    instrumented = b"__asan_init" in exe.read()  # (a sanitizer build)


def run(*args, ok=True):
    r = subprocess.run([rtcosim, *args], capture_output=True, text=True)
    assert (r.returncode == 0) == ok, (args, r.returncode, r.stderr)
    return r


def lines(path):
    with open(path) as f:
        return f.read().splitlines()


class Blocks:
    """An MDF 4 file's blocks: kind, links and data at an offset."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.d = f.read()

    def at(self, off, kind):
        assert self.d[off:off + 4] == b"##" + kind, (off, self.d[off:off + 4], kind)
        length, nlinks = struct.unpack_from("<QQ", self.d, off + 8)
        links = struct.unpack_from(f"<{nlinks}Q", self.d, off + 24)
        return links, self.d[off + 24 + 8 * nlinks:off + length]

    def text(self, off):
        return self.at(off, b"TX")[1].split(b"\0")[0].decode()

    def channels(self, first):
        out, off = [], first
        while off:
            links, data = self.at(off, b"CN")
            ctype, sync, dtype, bit_off, byte_off, bits, flags = struct.unpack_from("<BBBBIII",
                                                                                     data)
            out.append((self.text(links[2]), ctype, dtype, byte_off, bit_off, bits, links[1]))
            off = links[0]
        return out


with tempfile.TemporaryDirectory() as tmp:
    # ---- a logger's file, by hand ----
    log = os.path.join(tmp, "logger.mf4")
    with open(log, "wb") as f:
        f.write(logger().data)
    for bus in ("can0", "can1"):
        out = os.path.join(tmp, bus + ".log")
        r = run("can", "convert", log, out, "--bus", bus)
        # (the remote frame, on can0: its group names no bus channel)
        assert ("1 remote frames and 0 CAN XL frames left out" in r.stderr) == (bus == "can0")
        assert lines(out) == [line for _, line in FRAMES if f" {bus} " in line], (bus, lines(out))
    r = run("info", log)
    assert "(ASAM MDF 4)" in r.stdout and "7 on 2 buses: can0 can1" in r.stdout, r.stdout
    listed = {row.split()[0]: row.split()[1:4] for row in r.stdout.splitlines()
              if row.startswith("0x")}
    assert listed == {"0x0C0": ["can0", "classic", "-"], "0x123": ["can0", "classic", "-"],
                      "0x321": ["can0", "classic", "-"], "0x7FF": ["can0", "classic", "-"],
                      "0x456": ["can0", "CAN", "FD"], "0x18FF0001x": ["can0", "CAN", "FD"],
                      "0x1ABCDEF0x": ["can1", "classic", "-"]}, listed

    # frames and signals in one file: info shows the frames, then the signals
    mixed = os.path.join(tmp, "mixed.mf4")
    with open(mixed, "wb") as f:
        f.write(logger(signals=True).data)
    r = run("info", mixed)
    assert "7 on 2 buses: can0 can1" in r.stdout, r.stdout
    rows = [row.split() for row in r.stdout.splitlines() if "EngineSpeed" in row]
    # (group 6: the logger's three groups, the second data group's two, then this one)
    assert rows == [["6", "3", "0", "..", "0.2", "EngineSpeed", "rpm", "800", "1500.5", "0"]], \
        r.stdout
    assert "EngineSpeed" not in run("info", log).stdout  # (a bus log alone: frames only)

    # a DBC attached to the log (an AT block, as CANoe and asammdf attach it), stored or
    # deflate-compressed: can decode takes it when no --dbc is given, info names the
    # messages with it (0x123's data 01..08: B0 = 1, B7 = 2 x 8 = 16, at 1.25 ms)
    dbc = b"BO_ 291 M123: 8 N\n SG_ B0 : 0|8@1+ (1,0) [0|255] \"\" X\n" \
          b" SG_ B7 : 56|8@1+ (2,0) [0|510] \"\" X\n"
    for compressed in (False, True):
        f = logger()
        attach(f, "rig.dbc", dbc, compressed)
        att = os.path.join(tmp, f"attached{int(compressed)}.mf4")
        with open(att, "wb") as out:
            out.write(f.data)
        r = run("can", "decode", att)
        assert r.stdout == '"time","can0.M123.B0","can0.M123.B7"\n0.00125,1,16\n', r.stdout
        r = run("info", att)
        assert "attached database    rig.dbc (91 bytes): names the messages" in r.stdout, r.stdout
        assert [row.split()[3] for row in r.stdout.splitlines() if row.startswith("0x123")] == \
            ["M123"], r.stdout
    r = run("can", "decode", log, ok=False)
    assert f"{log} carries no database: give --dbc FILE" in r.stderr, r.stderr
    f = logger()
    at = attach(f, "rig.dbc", dbc, True)
    f.data[at + 24 + 32 + 40 + 2] ^= 0xFF  # (inside the deflate stream)
    bad_att = os.path.join(tmp, "bad_attachment.mf4")
    with open(bad_att, "wb") as out:
        out.write(f.data)
    r = run("can", "decode", bad_att, ok=False)
    assert r.stderr.count("\n") == 1 and "an attachment whose deflate data are corrupt" in \
        r.stderr, r.stderr

    # as a logger leaves it, unfinalized (cycle counters not updated): the same frames,
    # with one warning, from info (which reads it once) as from convert
    open_log = os.path.join(tmp, "open.mf4")
    with open(open_log, "wb") as f:
        f.write(b"UnFinMF " + bytes(logger().data)[8:60] + b"\x01\x00" + bytes(logger().data)[62:])
    out = os.path.join(tmp, "open.log")
    r = run("can", "convert", open_log, out, "--bus", "can1")
    assert lines(out) == [line for _, line in FRAMES if " can1 " in line]
    r = run("info", open_log)
    assert r.stderr.count("an unfinalized MDF file") == 1 and "7 on 2 buses" in r.stdout, r.stderr

    # python-can's layout: its interfaces' numbers as bus channels (0: can0), frames an
    # hour before the measurement's start: times since 1970, as a candump log's
    early = os.path.join(tmp, "early.mf4")
    with open(early, "wb") as f:
        f.write(python_can_style().data)
    for k, (t, bus, ident, ext, data) in enumerate(EARLY):
        out = os.path.join(tmp, "early.log")
        run("can", "convert", early, out, "--bus", f"can{bus}")
        us = round((START + t) * 1e6)
        idt = f"{ident:08X}" if ext else f"{ident:03X}"
        assert lines(out) == [f"({us // 10**6:010d}.{us % 10**6:06d}) can{bus} {idt}#{data.hex().upper()}"], \
            lines(out)

    # ---- read long, as a logger writes it: two data groups of many blocks (records across
    # their ends, every third deflated, DataBytes in a VLSD group's records), streamed a
    # block at a time and merged by time (each group's frames are in time order): the frames
    # as built, in the memory of a short log (read whole, every frame took ~275 bytes in
    # columns: 52 MB for these); records that point back into the variable-length data,
    # and a group out of time order (read whole and sorted), give the same frames ----
    probe = ("import resource, subprocess, sys; "
             "r = subprocess.run(sys.argv[1:], capture_output=True); "
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    # (200 000 frames for the memory bound; a sanitizer build, which does not measure it,
    # walks the same layout of blocks with 20 000: 138 s -> a few under ASan)
    many = 20_000 if instrumented else 200_000
    for n, variant in ((many, {}), (20_000, {"back": True}), (20_000, {"shuffle": True})):
        f, frames = long_logger(n, **variant)
        long_log, back = os.path.join(tmp, "long.mf4"), os.path.join(tmp, "long_back.log")
        with open(long_log, "wb") as out:
            out.write(f.data)
        got = subprocess.run([sys.executable, "-c", probe, rtcosim, "can", "convert", long_log,
                              back], capture_output=True, text=True).stdout.split()
        assert got[0] == "0", (variant, got)
        if n > 100_000 and not instrumented:  # (a sanitizer's shadow memory is no measure)
            assert int(got[1]) < 32 * 1024, got
        with open(back) as out:
            text = out.read()
        assert text == "".join(long_line(*fr) + "\n" for fr in frames), variant
        if not variant:
            r = run("info", long_log)
            assert f"frames               {n} on 1 bus: can0" in r.stdout, r.stdout
    # frames of two groups less than 1 ns apart are at one time in a log (its times are
    # whole ns): in the order of their groups, as when read whole and sorted (the second
    # group's frame is 0.2 ns earlier)
    f, _ = long_logger(0, frames=[(1.0000000004, 0, 0x100, False, b"\x01"),
                                  (1.0000000002, 1, 0x200, False, b"\x02")])
    with open(long_log, "wb") as out:
        out.write(f.data)
    run("can", "convert", long_log, back)
    assert lines(back) == ["(0000000001.000000) can0 100#01", "(0000000001.000000) can0 200#02"]

    # ---- written long: over 1 MiB of records, in DZ blocks (transposed and deflated)
    # listed by a DL block; read back, the same frames as the run's candump log ----
    long_mf4, long_log, back = (os.path.join(tmp, n) for n in ("long.mf4", "long.log", "back.log"))
    if not instrumented:
        for path in (long_mf4, long_log):
            run("events", "--ecus", "16", "--stop-time", "60", "--quiet", "--can-log", path)
    else:  # (under ASan the run takes ~55 s a file: a log of as many frames, converted)
        with open(long_log, "w") as out:
            out.writelines(f"({k // 1000:010d}.{k % 1000:03d}000) can0 {0x100 + k % 97:03X}#"
                           + "".join(f"{(k * 7 + i) & 255:02X}" for i in range(k % 9)) + "\n"
                           for k in range(65_000))
        run("can", "convert", long_log, long_mf4)
    with open(long_mf4, "rb") as f:
        raw = f.read()
    assert b"##DT" not in raw and raw.count(b"##DZ") == 1 and raw.count(b"##DL") == 1
    assert len(raw) < os.path.getsize(long_log) / 4
    run("can", "convert", long_mf4, back)
    assert [line.split()[2] for line in lines(back)] == [line.split()[2] for line in lines(long_log)]

    # ---- written: the layout, block by block ----
    mf4, dump = os.path.join(tmp, "v.mf4"), os.path.join(tmp, "v.log")
    for path, name in ((mf4, "ASAM MDF 4"), (dump, "candump -l")):
        r = run("events", "--ecus", "4", "--stop-time", "0.2", "--can-log", path)
        assert f"can log     {path} ({name})" in r.stdout, r.stdout
    b = Blocks(mf4)
    assert b.d[:8] == b"MDF     " and struct.unpack_from("<H", b.d, 28)[0] == 410
    assert b.d[60:64] == bytes(4)  # finalized
    hd_links, _ = b.at(64, b"HD")
    dg_links, dg_data = b.at(hd_links[0], b"DG")
    assert dg_data[0] == 0 and dg_links[0] == 0  # sorted: no record ids; one data group
    cg_links, cg_data = b.at(dg_links[1], b"CG")
    record_id, cycles, flags, sep, _, data_bytes, inval = struct.unpack_from("<QQHHIII", cg_data)
    assert flags == 6 and sep == ord(".") and inval == 0, (flags, sep)  # bus event, plain
    assert b.text(cg_links[2]) == "CAN"
    si_links, si_data = b.at(cg_links[3], b"SI")
    assert si_data[:2] == bytes([2, 2])  # source type bus, bus type CAN
    top = b.channels(cg_links[1])
    assert [c[:6] for c in top] == [("Timestamp", 2, 4, 0, 0, 64),
                                    ("CAN_DataFrame", 0, 10, 8, 0, 8 * (data_bytes - 8))], top
    fields = b.channels(top[1][6])
    width = data_bytes - 16
    assert width == 8  # the vehicle sends classic frames only
    assert [c[:6] for c in fields] == [
        ("CAN_DataFrame.BusChannel", 0, 0, 8, 0, 8), ("CAN_DataFrame.ID", 0, 0, 9, 0, 29),
        ("CAN_DataFrame.IDE", 0, 0, 13, 0, 1), ("CAN_DataFrame.Dir", 0, 0, 13, 1, 1),
        ("CAN_DataFrame.EDL", 0, 0, 13, 2, 1), ("CAN_DataFrame.BRS", 0, 0, 13, 3, 1),
        ("CAN_DataFrame.ESI", 0, 0, 13, 4, 1), ("CAN_DataFrame.DLC", 0, 0, 14, 0, 4),
        ("CAN_DataFrame.DataLength", 0, 0, 15, 0, 8),
        ("CAN_DataFrame.DataBytes", 0, 10, 16, 0, 64)], fields
    _, dt = b.at(dg_links[2], b"DT")
    assert len(dt) == cycles * data_bytes
    # the records, decoded here, are the candump log's frames
    expect = []
    for k in range(cycles):
        rec = dt[k * data_bytes:(k + 1) * data_bytes]
        t, bus, ident, bits, dlc, length = struct.unpack_from("<dBIBBB", rec)
        assert bus == 1 and bits & 0b11110 == 0 and dlc == length <= 8, rec
        idt = f"{ident:08X}" if bits & 1 else f"{ident:03X}"
        us = (round(t * 1e9) + 500) // 1000  # (candump -l: the ns time to the nearest us)
        expect.append(f"({0:010d}.{us:06d}) can0 {idt}#{rec[16:16 + length].hex().upper()}")
    assert expect == lines(dump), (expect[:3], lines(dump)[:3])
    # a bus log where a measurement belongs: said, with what decodes it
    for args in (["plot", mf4, "-o", os.path.join(tmp, "v.svg")],
                 ["simulate", os.path.join(os.path.dirname(rtcosim), "..", "fmus",
                                           "Feedthrough-fmi3.fmu"), "--input-file", mf4,
                  "-o", os.path.join(tmp, "out.csv")]):
        r = run(*args, ok=False)
        assert r.stderr.splitlines()[-1] == (
            f"rtcosim: {mf4}: a CAN bus log (CAN_DataFrame records), no measured signals: "
            f"decode its frames with a DBC (rtcosim can decode {mf4} --dbc F.dbc -o F.mf4)"), \
            r.stderr
    back = os.path.join(tmp, "back.log")
    run("can", "convert", mf4, back)
    assert lines(back) == lines(dump)
    # a replay of the MDF log drives the bus as the candump log does
    outs = []
    for replayed in (mf4, dump):
        out = os.path.join(tmp, "replayed.log")
        run("events", "--ecus", "2", "--stop-time", "0.2", "--quiet", "--can-replay",
            replayed, "--can-log", out)
        outs.append(lines(out))
    assert outs[0] == outs[1] and len(outs[0]) > len(lines(dump)) / 2, (len(outs[0]),)

    # CAN FD and extended frames: candump -> MDF -> candump, byte for byte
    fd = os.path.join(tmp, "fd.log")
    with open(fd, "w") as f:
        f.write("(0000000000.001000) can0 123#1122334455667788\n"
                "(0000000000.002000) can0 1ABCDEF0#DEADBEEF\n"
                "(0000000000.003000) can0 456##1000102030405060708090A0B\n"
                "(0000000000.004000) can0 12345678##3" + "".join(f"{i:02X}" for i in range(64)) +
                "\n(0000000000.005000) can0 7FF#\n")
    run("can", "convert", fd, os.path.join(tmp, "fd.mf4"))
    assert Blocks(os.path.join(tmp, "fd.mf4")).d.count(b"CAN_DataFrame.DataBytes") == 1
    run("can", "convert", os.path.join(tmp, "fd.mf4"), os.path.join(tmp, "fd_back.log"))
    assert lines(os.path.join(tmp, "fd_back.log")) == lines(fd)

    # ---- bad files: one line naming the file ----
    good = bytes(logger().data)
    # the first data frame's record as mdf_bus_build.py writes it: id 1, 125 ticks, bus 1,
    # ID 0x123, DLC 8, DataLength 8, DataBytes at offset 0 of the SD block
    first = b"\x01" + struct.pack("<IBIBBQ", 125, 1, 0x123, 8, 8, 0)
    assert good.count(first) == 1
    bad = {
        "measurement.mf4": None,  # rtcosim's own results: no CAN frames
        "mdf3.mf4": (b"MDF     3.30    " + good[16:28] + struct.pack("<H", 330) + good[30:],
                     ["an MDF 3 file: CAN bus logs are read from MDF 4 files"]),
        "cut.mf4": (good[:len(good) // 2], ["MDF block at"]),
        # the first frame's DataBytes offset past the SD block's data
        "offset.mf4": (good.replace(first, first[:-8] + struct.pack("<Q", 999)),
                       ["record 1 points past its variable-length data"]),
        # its DataLength 12: more than the 8 bytes its DataBytes hold
        "length.mf4": (good.replace(first, first[:-9] + b"\x0c" + first[-8:]),
                       ["12 data bytes but DataBytes holds 8"]),
        # each group of frames walks its data group once: 257 in one are refused (256 read)
        "many.mf4": (bytes(many_groups(257).data),
                     ["more than 256 channel groups of CAN frames in one data group"]),
    }
    many = os.path.join(tmp, "many256.mf4")
    with open(many, "wb") as f:
        f.write(many_groups(256).data)
    assert "frames               256 on 1 bus: can0" in run("info", many).stdout
    r = run("simulate", os.path.join(os.path.dirname(rtcosim), "..", "fmus",
                                     "BouncingBall-fmi3.fmu"),
            "--stop-time", "0.1", "-o", os.path.join(tmp, "measurement.mf4"))
    for name, case in bad.items():
        path = os.path.join(tmp, name)
        want = ["an MDF file without CAN frames"]
        if case:
            data, want = case
            with open(path, "wb") as f:
                f.write(data)
        for args in (["can", "convert", path, os.path.join(tmp, "x.log")],
                     ["events", "--ecus", "2", "--stop-time", "0.01", "--can-replay", path]):
            r = run(*args, ok=False)
            assert r.stderr.count("\n") == 1 and path in r.stderr, (name, r.stderr)
            assert all(w in r.stderr for w in want), (name, r.stderr, want)
print("ok")
