"""MDF 4 measurement files read as a stimulus and plotted: files built here
byte by byte from the format's block layouts (little-endian; a block is
"##XX", 4 reserved bytes, its length and link count as uint64, the links,
its data), the kinds measurement tools write:
- an unsorted data group (1-byte record ids) of two channel groups: one
  with a double time, a uint16 with a linear conversion (-1 + 0.5 x) and a
  unit, and a string channel (left out); one with a float32
  time and a big-endian int16 with invalidation bits; its records split
  over a DL list of a DT and a DZ (deflate) block;
- a sorted data group behind an HL list of a transposed-deflate DZ block
  with a 4-bit field at bit offset 2.
Truth, by hand: the channels on the union of the groups' times, each
holding its last sample; as a stimulus an invalid sample or one before the
first holds the nearest valid one. The Feedthrough FMU's outputs give the
values back. The same files were read by asammdf 8.0.0 outside the suite
(src/results/README.md). Bad files get one line naming the file.
Usage: test_mdf_read.py RTCOSIM FEEDTHROUGH_FMU BOUNCINGBALL_FMU"""
import csv
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdf_build import measurement  # noqa: E402

rtcosim, feedthrough, ball = sys.argv[1:4]


def fail(path, *want):
    r = subprocess.run([rtcosim, "plot", path, "-o", path + ".svg"], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert path in r.stderr and all(w in r.stderr for w in want), (r.stderr, want)
    assert not os.path.exists(path + ".svg")


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "rig.mf4")
    with open(path, "wb") as out:
        out.write(measurement().data)
    # a stimulus: the Feedthrough FMU gives each input back at every point
    res = os.path.join(tmp, "out.csv")
    r = subprocess.run([rtcosim, "simulate", feedthrough, "--input-file", path, "--stop-time",
                        "0.4375", "--output-interval", "0.0625", "-o", res,
                        "--output-variable", "Float64_continuous_output",
                        "--output-variable", "Float64_discrete_output",
                        "--output-variable", "Int32_output"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "1 channels left out (not numbers" in r.stderr, r.stderr  # the string channel
    with open(res, newline="") as f:
        rows = [[float(x) for x in row] for row in list(csv.reader(f))[1:]]
    # the inputs on the union of the times 0, 1/16, ... 7/16 s
    want = {1: [0, 0, 1, 1, 2, 2, 3, 3], 2: [-3, -3, -3, -3, -3, -3, -3, 100],
            3: [5, 5, 5, 10, 10, 10, 15, 15]}
    # an output row holds the input of the point before (inputs set at t,
    # outputs read after the step to t + h, as fmusim), the first its start
    assert [row[0] for row in rows] == [k * 0.0625 for k in range(8)], rows
    for col, values in want.items():
        assert [row[col] for row in rows] == values[:1] + values[:-1], (col, rows)
    # info: per group its records and span, per channel unit, range, invalid samples
    r = subprocess.run([rtcosim, "info", path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "(MDF 4.10, written by handmade)" in r.stdout and "1 more left out" in r.stdout
    rows_seen = [line.split() for line in r.stdout.splitlines() if line[:1].isdigit()]
    assert rows_seen == [["1", "4", "0", "..", "0.375", "Float64_continuous_input", "V", "0", "3",
                          "0"],
                         ["2", "3", "0.0625", "..", "0.4375", "Float64_discrete_input", "-", "-3",
                          "100", "1"],
                         ["3", "3", "0", "..", "0.375", "Int32_input", "-", "5", "15", "0"]], \
        r.stdout
    # plotted, all channels (gaps where one has no valid sample) or one by name
    for names in ([], ["Float64_continuous_input"]):
        r = subprocess.run([rtcosim, "plot", path, *names, "-o", os.path.join(tmp, "rig.svg")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([rtcosim, "plot", path, "label", "-o", os.path.join(tmp, "rig.svg")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "no variable 'label'" in r.stderr, r.stderr
    # rtcosim's own MDF results plot against its CSV
    for ext in ("mf4", "csv"):
        r = subprocess.run([rtcosim, "simulate", ball, "--stop-time", "1", "-o",
                            os.path.join(tmp, "ball." + ext)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([rtcosim, "plot", os.path.join(tmp, "ball.mf4"),
                        os.path.join(tmp, "ball.csv"), "h", "-o", os.path.join(tmp, "ball.svg")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

    # bad files: one line naming the file and the problem
    good = bytes(measurement().data)
    cases = {
        "v3.mf4": (b"MDF     3.30    " + good[16:28] + struct.pack("<H", 330) + good[30:],
                   ["MDF version 3.30", "only MDF 4 files are read"]),
        "unfinished.mf4": (b"UnFinMF " + good[8:], ["unfinalized"]),
        "flags.mf4": (good[:60] + b"\x01\x00" + good[62:], ["unfinalized"]),
        "cut.mf4": (good[:len(good) // 2], ["MDF block at"]),
        "text.mf4": (b"time,x\n0,1\n" + bytes(64), ["not an MDF file"]),
    }
    f = measurement()
    dl_at = f.data.index(b"##DL")
    f.link(dl_at, 0, dl_at)  # a DL whose next is itself
    cases["loop.mf4"] = (bytes(f.data), ["a loop in a data list"])
    f = measurement()
    at = f.data.index(b"##DT") + 24
    f.data[at] = 9  # the first record's id
    cases["record.mf4"] = (bytes(f.data), ["record id 9 of no channel group"])
    f = measurement()
    at = f.data.index(b"##DZ") + 24 + 24 + 2
    f.data[at:at + 4] = b"\xff\xff\xff\xff"
    cases["deflate.mf4"] = (bytes(f.data), ["deflate data are corrupt"])
    f = measurement()
    hd = 64
    f.link(hd, 0, f.data.index(b"##CN"))
    cases["kind.mf4"] = (bytes(f.data), ["##CN where ##DG belongs"])
    for name, (data, want) in cases.items():
        p = os.path.join(tmp, name)
        with open(p, "wb") as out:
            out.write(data)
        fail(p, *want)
print("ok")
