"""MDF 4 and MDF 3 measurement files read as a stimulus and plotted: files built here
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
- MDF 3.30 (and 3.00, its header without the UTC start), two-letter blocks
  with uint16 lengths and uint32 links: a sorted data group (a double time,
  a uint16 with a linear conversion and a unit, named by its long-name TX
  block), and an unsorted one whose records carry their id before and after:
  a float32 time with a Motorola int16 and a string, and a uint32 time of
  1/16 s ticks by a polynomial conversion with a 4-bit field behind an
  additional byte offset.
Truth, by hand: the channels on the union of the groups' times; as a
stimulus an input that holds gets a channel's last valid sample, one that
interpolates the line between its own valid samples (not between the other
groups' times, where it has none), and before the first sample that sample. The Feedthrough FMU's outputs give the
values back. The same files were read by asammdf 8.0.0 outside the suite
(src/results/README.md). Bad files get one line naming the file.
Usage: test_mdf_read.py RTCOSIM FEEDTHROUGH_FMU BOUNCINGBALL_FMU"""
import csv
import html
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdf_build import Mdf3, measurement, measurement3, tables, tables3, with_pole  # noqa: E402

rtcosim, feedthrough, ball = sys.argv[1:4]


def fail(path, *want):
    r = subprocess.run([rtcosim, "plot", path, "-o", path + ".svg"], capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert path in r.stderr and all(w in r.stderr for w in want), (r.stderr, want)
    assert not os.path.exists(path + ".svg")


def fed_through(path, tmp, left_out=True):
    """The Feedthrough FMU's outputs for the measurement's three inputs, 1/16 s apart."""
    res = os.path.join(tmp, "out.csv")
    r = subprocess.run([rtcosim, "simulate", feedthrough, "--input-file", path, "--stop-time",
                        "0.4375", "--output-interval", "0.0625", "-o", res,
                        "--output-variable", "Float64_continuous_output",
                        "--output-variable", "Float64_discrete_output",
                        "--output-variable", "Int32_output"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("1 channels left out (not numbers" in r.stderr) == left_out, r.stderr  # a string
    with open(res, newline="") as f:
        return [[float(x) for x in row] for row in list(csv.reader(f))[1:]]


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "rig.mf4")
    with open(path, "wb") as out:
        out.write(measurement().data)
    # a stimulus: the Feedthrough FMU gives each input back at every point
    rows = fed_through(path, tmp)
    # the inputs on the union of the times 0, 1/16, ... 7/16 s: the continuous one
    # interpolated between its samples 1/8 s apart, the discrete ones held
    want = {1: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3], 2: [-3, -3, -3, -3, -3, -3, -3, 100],
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
    # plotted, all channels (gaps where one has no valid sample) or one by name; a channel
    # is drawn at its own samples, not at the other groups' times where the table holds it:
    # a marker (PLplot's glyph, as text) per valid sample of its group
    for names, markers in (([], None), (["Float64_continuous_input"], 4),
                           (["Float64_discrete_input"], 2)):
        svg = os.path.join(tmp, "rig.svg")
        r = subprocess.run([rtcosim, "plot", path, *names, "-o", svg], capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        with open(svg) as f:
            texts = [html.unescape(t) for t in re.findall(r"<tspan[^>]*>(.*?)</tspan>", f.read())]
        assert markers is None or texts.count("\u25cb") == markers, (names, texts)
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

    # the discrete channel driving the continuous input: the line between its valid
    # samples (-3 at 1/16 s, 100 at 7/16 s: the invalid one at 5/16 s skipped), -3 before
    r = subprocess.run([rtcosim, "simulate", feedthrough, "--input-file", path, "--stop-time",
                        "0.4375", "--output-interval", "0.0625", "-o", path + ".csv",
                        "--input-column", "Float64_continuous_input=Float64_discrete_input",
                        "--output-variable", "Float64_continuous_output"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(path + ".csv", newline="") as f:
        got = [float(row[1]) for row in list(csv.reader(f))[1:]]
    line = [-3.0] + [-3 + (k - 1) / 6 * 103 for k in range(1, 8)]
    assert all(abs(g - w) < 1e-12 for g, w in zip(got, line[:1] + line[:-1])), (got, line)
    assert len(got) == 8, got

    # `run` maps them the same way, for a system's inputs named component.variable: only
    # the mapped channels join the system (as the table "input"), the continuous input
    # along the line, the integer one held; the file's warning said once, not per read
    shutil.copy(feedthrough, os.path.join(tmp, "ft.fmu"))
    ssd = os.path.join(tmp, "rig.ssd")
    with open(ssd, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<ssd:SystemStructureDescription '
                'version="1.0" name="rig" xmlns:ssd="http://ssp-standard.org/SSP1/'
                'SystemStructureDescription"><ssd:System name="rig"><ssd:Elements>'
                '<ssd:Component name="ecu" source="ft.fmu"/></ssd:Elements></ssd:System>'
                '</ssd:SystemStructureDescription>\n')
    res = os.path.join(tmp, "rig_run.csv")
    r = subprocess.run([rtcosim, "run", ssd, "--input-file", path, "--stop-time", "0.4375",
                        "--step-size", "0.0625", "-o", res,
                        "--input-column", "ecu.Float64_continuous_input=Float64_discrete_input",
                        "--input-column", "ecu.Int32_input=Int32_input"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("1 channels left out") == 1, r.stderr
    with open(res, newline="") as f:
        table = list(csv.reader(f))
    head = table[0]
    assert [h for h in head if h.startswith("input.")] == \
        ["input.ecu.Float64_continuous_input", "input.ecu.Int32_input"], head
    cols = {h: [float(row[i]) for row in table[1:]] for i, h in enumerate(head)}
    assert all(abs(g - w) < 1e-12 for g, w in
               zip(cols["input.ecu.Float64_continuous_input"], line)), cols
    assert len(cols["time"]) == 8
    assert cols["input.ecu.Int32_input"] == want[3], cols
    # (the FMU's output a step behind its input, as the Jacobi order has it)
    assert cols["ecu.Int32_output"] == want[3][:1] + want[3][:-1], cols
    for option, want_err in (
            ("ecu.Float64_continuous_input=Float64_discrete_inpt",
             path + ": no column 'Float64_discrete_inpt'; did you mean 'Float64_discrete_input'?"),
            ("ecu.Float64_input=Float64_discrete_input",
             "column 'ecu.Float64_input': the system has no such connector"),
            ("ecu.Float64_continuous_input", "needs INPUT=COLUMN")):
        r = subprocess.run([rtcosim, "run", ssd, "--input-file", path, "-o", res,
                            "--stop-time", "0.1", "--input-column", option],
                           capture_output=True, text=True)
        lines = [x for x in r.stderr.splitlines() if not x.startswith("[warning]")]
        assert r.returncode != 0 and len(lines) == 1 and want_err in lines[0], r.stderr
    r = subprocess.run([rtcosim, "run", ssd, "-o", res, "--input-column", "a=b"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--input-column maps columns of --input-file" in r.stderr

    # MDF 3: the same inputs (no invalid sample; the union lacks 5/16, where the
    # continuous input is interpolated between its neighbours as at 1/16 and 3/16)
    want3 = {1: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3], 2: [-3, -3, -3, -3, -3, -3, -3, 100],
             3: [5, 5, 5, 10, 10, 10, 15, 15]}
    for version, start in ((330, "2026-01-02 03:04:05 UTC"), (300, "2026-01-02 04:04:05 (local")):
        path3 = os.path.join(tmp, f"rig{version}.mdf")
        with open(path3, "wb") as out:
            out.write(measurement3(version).data)
        rows = fed_through(path3, tmp)
        assert [row[0] for row in rows] == [k * 0.0625 for k in range(8)], rows
        for col, values in want3.items():
            assert [row[col] for row in rows] == values[:1] + values[:-1], (version, col, rows)
        r = subprocess.run([rtcosim, "info", path3], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert f"(MDF {version // 100}.{version % 100:02d}, written by handmade)" in r.stdout
        assert start in r.stdout and "1 more left out" in r.stdout, r.stdout
        rows_seen = [line.split() for line in r.stdout.splitlines() if line[:1].isdigit()]
        assert rows_seen == [["1", "4", "0", "..", "0.375", "Float64_continuous_input", "V", "0",
                              "3", "0"],
                             ["2", "2", "0.0625", "..", "0.4375", "Float64_discrete_input", "-",
                              "-3", "100", "0"],
                             ["3", "3", "0", "..", "0.375", "s", "Int32_input", "-", "5", "15",
                              "0"]], r.stdout
        r = subprocess.run([rtcosim, "plot", path3, "-o", os.path.join(tmp, "rig3.svg")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr

    # value tables: raw 0..7, by hand through MDF 4's interpolated, nearest-key and range
    # tables and MDF 3's interpolated and nearest-key ones (and a linear 100 - x)
    by_table = {1: [10, 10, 20, 30, 15, 0, 0, 0], 2: [10, 10, 10, 30, 30, 60, 60, 60]}
    for name, f, col3 in (("tables.mf4", tables(), [-1, -1, -2, -2, -2, -5, 99, 99]),
                          ("tables.mdf", tables3(), [100 - k for k in range(8)])):
        p = os.path.join(tmp, name)
        with open(p, "wb") as out:
            out.write(f.data)
        rows = fed_through(p, tmp, left_out=False)
        for col, values in {**by_table, 3: col3}.items():
            assert [row[col] for row in rows] == values[:1] + values[:-1], (name, col, rows)

    # --input-column: a measurement's channels under other names drive the inputs, the
    # file's other channels left alone (tables.mf4: the range table's and the nearest-key
    # table's values, by hand above)
    p = os.path.join(tmp, "tables.mf4")
    r = subprocess.run([rtcosim, "simulate", feedthrough, "--input-file", p, "--stop-time",
                        "0.4375", "--output-interval", "0.0625", "-o", p + ".csv",
                        "--input-column", "Float64_continuous_input=Int32_input",
                        "--input-column=Int32_input=Float64_discrete_input",
                        "--output-variable", "Float64_continuous_output",
                        "--output-variable", "Int32_output"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(p + ".csv", newline="") as f:
        rows = [[float(x) for x in row] for row in list(csv.reader(f))[1:]]
    ranges, nearest = [-1, -1, -2, -2, -2, -5, 99, 99], by_table[2]
    assert [row[1] for row in rows] == ranges[:1] + ranges[:-1], rows
    assert [row[2] for row in rows] == nearest[:1] + nearest[:-1], rows
    for option, want in (("Float64_continuous_input=Int32_inpt",
                          [p + ": no column 'Int32_inpt'", "did you mean 'Int32_input'?"]),
                         ("Float64_continuous_input", ["needs INPUT=COLUMN"])):
        r = subprocess.run([rtcosim, "simulate", feedthrough, "--input-file", p, "-o",
                            p + ".csv", "--input-column", option], capture_output=True, text=True)
        assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
        assert all(w in r.stderr for w in want), (r.stderr, want)

    # a channel with an infinite sample is left out, said; the others drive their inputs
    p = os.path.join(tmp, "pole.mf4")
    with open(p, "wb") as out:
        out.write(with_pole().data)
    r = subprocess.run([rtcosim, "simulate", feedthrough, "--input-file", p, "--stop-time",
                        "0.1875", "--output-interval", "0.0625", "-o", p + ".csv",
                        "--output-variable", "Float64_continuous_output"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "'hyperbolic' left out: point 2 is -inf, not a finite number" in r.stderr, r.stderr
    with open(p + ".csv", newline="") as f:
        assert [float(row[1]) for row in list(csv.reader(f))[1:]] == [0, 0, 1, 2]

    # unfinalized files, as loggers leave them ("UnFinMF ", flags for the cycle counters
    # and the last DT block's length): read with one warning, the same values; a DT
    # block left at the length of an empty one holds the records to the file's end
    good = bytes(measurement().data)
    ref = fed_through(path, tmp)
    for name, data in (("unfinished.mf4", b"UnFinMF " + good[8:]),
                       ("flags.mf4", good[:60] + b"\x05\x00" + good[62:])):
        p = os.path.join(tmp, name)
        with open(p, "wb") as out:
            out.write(data)
        assert fed_through(p, tmp) == ref, name
        r = subprocess.run([rtcosim, "info", p], capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr.count("an unfinalized MDF file") == 1, r.stderr
    f = measurement()
    dg = f.block(b"DG", [0, 0, 0, 0], bytes(8))  # a sorted group whose DT ends the file
    g = f.block(b"CG", [0, 0, 0, 0, 0, 0], struct.pack("<QQHHIII", 0, 0, 0, 0, 0, 16, 0))
    cns = [f.block(b"CN", [0, 0, f.text(b"TX", n), 0, 0, 0, 0, 0],
                   struct.pack("<BBBBIIIIBBH6d", t, 1 if t == 2 else 0, 4, 0, o, 64, 0, 0, 0, 0, 0,
                               0, 0, 0, 0, 0, 0)) for n, t, o in (("t", 2, 0), ("late", 0, 8))]
    f.link(cns[0], 0, cns[1])
    f.link(g, 1, cns[0])
    f.link(dg, 1, g)
    last_dg = 64 + 24  # HD's first link: the data group list
    at = struct.unpack_from("<Q", f.data, last_dg)[0]
    while struct.unpack_from("<Q", f.data, at + 24)[0]:
        at = struct.unpack_from("<Q", f.data, at + 24)[0]
    f.link(at, 0, dg)
    dt = f.block(b"DT", [], struct.pack("<4d", 0.0, 7.0, 0.5, 8.0))
    f.link(dg, 2, dt)
    struct.pack_into("<Q", f.data, dt + 8, 24)  # the length never written
    f.data[:8] = b"UnFinMF "
    struct.pack_into("<H", f.data, 60, 1 | 4)
    p = os.path.join(tmp, "open.mf4")
    with open(p, "wb") as out:
        out.write(f.data)
    r = subprocess.run([rtcosim, "info", p], capture_output=True, text=True)
    assert r.returncode == 0 and "its last data block to the end of the file" in r.stderr
    late = [line.split() for line in r.stdout.splitlines() if " late " in line]
    assert late == [["4", "2", "0", "..", "0.5", "late", "-", "7", "8", "0"]], r.stdout

    # bad files: one line naming the file and the problem
    cases = {
        "v2.mdf": (bytes(Mdf3(214).data) + bytes(64),
                   ["MDF version 2.14", "only MDF 3 and MDF 4 files are read"]),
        "motorola.mdf": (bytes(Mdf3(330, order=1).data), ["big-endian (Motorola) layout"]),
        "vax.mdf": (bytes(Mdf3(330, floats=2).data), ["VAX floats (format 2)"]),
        # unfinalized with the offsets of variable-length values never written
        "vlsd_offsets.mf4": (b"UnFinMF " + good[8:60] + b"\x40\x00" + good[62:],
                             ["unfinalized", "offsets were never written"]),
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
    # MDF 3's: records past the end, a channel list that loops, a block of the wrong kind,
    # an unknown record id
    f = measurement3()
    cg = f.data.rindex(b"CG\x1a\x00")  # the unsorted group's second channel group
    struct.pack_into("<I", f.data, cg + 22, 100000)
    cases["past.mdf"] = (bytes(f.data), ["records", "run past the end of the file"])
    f = measurement3()
    cn = f.data.index(b"CN")
    f.link(cn, 4, cn)
    cases["loop3.mdf"] = (bytes(f.data), ["a loop in a channel list"])
    f = measurement3()
    f.link(64, 4, f.data.index(b"CN"))
    cases["kind3.mdf"] = (bytes(f.data), ["CN where DG belongs"])
    f = measurement3()
    f.data[f.data.index(b"\x02\x00\x00\x00\x00\x17\x02")] = 9  # the first record's id
    cases["record3.mdf"] = (bytes(f.data), ["record id 9 of no channel group"])
    for name, (data, want) in cases.items():
        p = os.path.join(tmp, name)
        with open(p, "wb") as out:
            out.write(data)
        fail(p, *want)
print("ok")
