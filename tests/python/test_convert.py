"""`rtcosim convert`: a results file or measurement into another results
format. Truth: the run's own CSV (its shortest decimals read back bit for bit
by Python's csv module and float()), scipy.io.loadmat for the MAT file, and
the hand-built two-rate MDF 4 measurement of tests/results/mdf_build.py,
whose values its builder lays out by hand."""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import fmu, instrumented, source

import scipy.io as scipy_io  # python3-scipy (scripts/deps.sh)


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def columns_of(chars):
    """binTrans: a char matrix with one name a column (scipy: one str a row)."""
    return ["".join(row[i] for row in chars).strip() for i in range(len(chars[0]))]


def run(cli, *args):
    return subprocess.run([cli, "convert", *args], capture_output=True, text=True)


@pytest.fixture
def ball(cli, tmpdir_private):
    path = os.path.join(tmpdir_private, "ball.csv")
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "--stop-time", "3",
                    "--output-interval", "0.01", "--csv-units", "-o", path], check=True,
                   stdout=subprocess.DEVNULL)
    return path


def test_csv_through_mdf_and_back_is_the_same_file(cli, tmpdir_private, ball):
    mf4, back = os.path.join(tmpdir_private, "ball.mf4"), os.path.join(tmpdir_private, "back.csv")
    r = run(cli, ball, mf4)
    assert r.returncode == 0 and r.stdout == f"{mf4}: 301 rows of 2 variables\n", r
    assert run(cli, mf4, back, "--csv-units").returncode == 0
    with open(ball, "rb") as a, open(back, "rb") as b:
        assert a.read() == b.read()


def test_mat_holds_the_runs_values_and_units(cli, tmpdir_private, ball):
    mat = os.path.join(tmpdir_private, "ball.mat")
    assert run(cli, ball, mat).returncode == 0
    m = scipy_io.loadmat(mat)
    names, desc = columns_of(m["name"]), columns_of(m["description"])
    assert names == ["time", "h", "v"]
    assert desc[1].endswith("[m]") and desc[2].endswith("[m/s]"), desc
    table = rows_of(ball)[2:]
    data = m["data_2"]
    assert data.shape == (3, len(table))
    for i in range(3):
        assert list(data[i]) == [float(row[i]) for row in table]


def test_variables_in_their_order_within_the_window(cli, tmpdir_private, ball):
    out = os.path.join(tmpdir_private, "window.csv")
    r = run(cli, ball, out, "v", "h", "v", "--from", "1", "--to", "2")
    assert r.returncode == 0, r.stderr
    got = rows_of(out)
    want = [[row[0], row[2], row[1]] for row in rows_of(ball)[2:] if 1 <= float(row[0]) <= 2]
    assert got[0] == ["time", "v", "h"] and got[1:] == want and len(want) == 101


def test_a_two_rate_measurement_on_the_union_of_its_times(cli, tmpdir_private):
    sys.path.insert(0, source("tests", "results"))
    from mdf_build import measurement
    rig, out = os.path.join(tmpdir_private, "rig.mf4"), os.path.join(tmpdir_private, "rig.csv")
    with open(rig, "wb") as f:
        f.write(measurement().data)
    names = ["Float64_continuous_input", "Float64_discrete_input", "Int32_input"]
    r = run(cli, rig, out, *names, "--csv-units")
    assert r.returncode == 0, r.stderr
    got = rows_of(out)
    assert got[0] == ["time"] + names and got[1][1] == "V"
    nan = float("nan")
    want = {"Float64_continuous_input": [0, 0, 1, 1, 2, 2, 3, 3],  # the builder's, by hand
            "Float64_discrete_input": [nan, -3, -3, -3, -3, nan, nan, 100],
            "Int32_input": [5, 5, 5, 10, 10, 10, 15, 15]}
    table = got[2:]
    assert [float(row[0]) for row in table] == [k / 16 for k in range(8)]
    for i, name in enumerate(names, 1):
        values = [float(row[i]) if row[i] else nan for row in table]
        assert np.array_equal(values, want[name], equal_nan=True), (name, values)


def groups_mf4(path, groups):
    """An MDF 4 file of one data group per (name, times, values): a channel
    group of time and the named channel, doubles, with these records."""
    sys.path.insert(0, source("tests", "results"))
    from mdf_build import Mf4, chain, channel, channel_group
    f = Mf4()
    hd = f.block(b"HD", [0, 0, 0, 0, 0, 0], bytes(32))
    prev = None
    for name, times, values in groups:
        cns = [channel(f, "time", 2, 4, 0, 64), channel(f, name, 0, 4, 8, 64)]
        cg = channel_group(f, 0, len(times), 16, 0, chain(f, cns))
        dt = f.block(b"DT", [], np.column_stack([times, values]).astype("<f8").tobytes())
        dg = f.block(b"DG", [0, cg, dt, 0], bytes(8))
        f.link(prev if prev is not None else hd, 0, dg)
        prev = dg
    with open(path, "wb") as out:
        out.write(f.data)


def one_group_mf4(path, times, values):
    """An MDF 4 file of one channel group (time, x: doubles) with these records."""
    groups_mf4(path, [("x", times, values)])


def test_two_rates_stream_on_the_union_of_their_times(cli, tmpdir_private):
    """Two channel groups (1 kHz and a slower rate off its grid, 400 000 and
    30 000 records): merged by time as they are read, each channel held at
    its last sample, the file the table makes (RTCOSIM_MDF_WHOLE=1) byte for
    byte, in less memory (12 against 26 MB when written: no groups' values and
    no union table held)."""
    fast_t = np.arange(400_000) * 1e-3
    slow_t = np.arange(30_000) * 0.013 + 0.0005
    mf4 = os.path.join(tmpdir_private, "rates.mf4")
    groups_mf4(mf4, [("fast", fast_t, np.sin(fast_t)), ("slow", slow_t, slow_t * 2)])
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out, peak = {}, {}
    for whole in ("0", "1"):
        out[whole] = os.path.join(tmpdir_private, f"rates{whole}.csv")
        r = subprocess.run([sys.executable, "-c", probe, cli, "convert", mf4, out[whole]],
                           capture_output=True, text=True,
                           env=dict(os.environ, RTCOSIM_MDF_WHOLE=whole))
        code, peak[whole] = r.stdout.split()
        assert code == "0", r.stderr
    with open(out["0"], "rb") as a, open(out["1"], "rb") as b:
        assert a.read() == b.read()
    if not instrumented(cli):
        assert int(peak["0"]) < int(peak["1"]), peak
    table = rows_of(out["0"])
    assert table[0] == ["time", "fast", "slow"] and len(table) == 1 + 400_000 + 30_000
    # by hand: at 0.0005 s the slow group's first sample (0.001), the fast one's of 0 s held
    assert table[1] == ["0", "0", "nan"] and table[2] == ["0.0005", "0", "0.001"]


@pytest.mark.parametrize("times", [[0.0, 0.5, 1.0, 1.0, 2.0],  # in order: streamed
                                   [0.0, 1.0, 2.0, 1.5, 3.0],  # goes back: the table's rows
                                   [0.0, 1.0, float("nan"), 3.0, 4.0]])
def test_one_group_in_order_streams_else_the_table(cli, tmpdir_private, times):
    """An MDF file of one channel group streams its records to the recorder;
    when a time goes back or is NaN the rows so far are dropped and the
    table is written, its records in time order (the value at 1.5 s is the
    record's of 1.5 s: the hold once took the record before it in the
    file), a NaN time's left out: either way the rows of read_result, which
    reads the table."""
    import rtcosim
    mf4, out = os.path.join(tmpdir_private, "one.mf4"), os.path.join(tmpdir_private, "one.csv")
    values = [10.0 + k for k in range(len(times))]
    one_group_mf4(mf4, times, values)
    r = run(cli, mf4, out)
    assert r.returncode == 0, r.stderr
    got = rows_of(out)
    table = rtcosim.read_result(mf4)
    assert got[0] == ["time", "x"]
    assert [float(row[0]) for row in got[1:]] == list(table["time"])
    assert [float(row[1]) for row in got[1:]] == list(table["x"])
    # the records in time order (ties in the file's), those of a NaN time dropped
    want = sorted((t, k, v) for k, (t, v) in enumerate(zip(times, values)) if t == t)
    assert [float(row[0]) for row in got[1:]] == [t for t, _, _ in want]
    assert [float(row[1]) for row in got[1:]] == [v for _, _, v in want]


def test_bad_requests_say_what_and_write_nothing(cli, tmpdir_private, ball):
    out = os.path.join(tmpdir_private, "out.csv")
    broken = os.path.join(tmpdir_private, "broken.mf4")
    with open(broken, "wb") as f:
        f.write(b"MDF     4.10    " + b"\0" * 48)
    for args, says in (
            ([ball, out, "nope"], f"{ball}: no variable 'nope'"),
            ([ball, os.path.join(tmpdir_private, "out.txt")], "unknown results format '.txt'"),
            ([ball, ball], "refusing to overwrite it"),
            ([ball, out, "--from", "2", "--to", "1"], "window 2 .. 1 s is empty"),
            ([ball, out, "--from", "soon"], "--from needs a time in seconds"),
            ([os.path.join(tmpdir_private, "absent.mf4"), out], "absent.mf4"),
            ([broken, out], "broken.mf4"),
            ([ball], "no output file given"),
            ([ball, out, "--frm", "1"], "--frm")):
        r = run(cli, *args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode != 0 and says in lines[-1], (args, r.stderr)
        assert not os.path.exists(out), args
    with open(ball) as f:
        assert f.read().startswith('"time","h","v"')  # (the input untouched)


def dymola_mat(path, times, columns, trans, fmt="4", compress=False, single=False):
    """A Dymola result file by hand: time and `columns` (name -> values) in
    data_2, 'minus_x1' the negated alias of x1, 'p' = 3.5 in data_1."""
    names = ["time"] + list(columns) + ["minus_x1", "p"]
    descs = ["Time [s]"] + ["Signal %d [V]" % k for k in range(len(columns))] + ["-x1 [V]", "P"]
    info = [[0, 1, 0, -1]] + [[2, k + 2, 0, -1] for k in range(len(columns))] \
        + [[2, -2, 0, -1], [1, 2, 0, 0]]
    d2 = np.column_stack([times] + list(columns.values()))
    d1 = np.array([[times[0], 3.5], [times[-1], 3.5]])
    width = max(len(n) for n in names + descs)
    def chars(texts, trans):
        """A char matrix: one text a row, or (binTrans) one a column."""
        padded = [t.ljust(width) for t in texts]
        return np.array(["".join(t[i] for t in padded) for i in range(width)] if trans else padded)
    if single:
        d2 = d2.astype(np.float32)
    kind = "binTrans" if trans else "binNormal"
    m = {"Aclass": np.array(["Atrajectory", "1.1        ", "           ", kind.ljust(11)]),
         "name": chars(names, trans), "description": chars(descs, trans),
         "dataInfo": (np.array(info, dtype=np.int32).T if trans else np.array(info, dtype=np.int32)),
         "data_1": d1.T if trans else d1, "data_2": d2.T if trans else d2}
    scipy_io.savemat(path, m, format=fmt, do_compression=compress)


@pytest.mark.parametrize("trans,fmt,compress,single", [
    (True, "4", False, False), (False, "4", False, False), (True, "4", False, True),
    (True, "5", False, False), (False, "5", True, False), (False, "5", False, True)])
def test_mat_variables_read_alone_are_the_files_values(cli, tmpdir_private, trans, fmt, compress,
                                                       single):
    times = np.linspace(0, 2, 3001)
    cols = {"x%d" % k: np.sin(k * times) + k for k in range(1, 8)}
    mat = os.path.join(tmpdir_private, "d.mat")
    dymola_mat(mat, times, cols, trans, fmt, compress, single)
    kind = np.float32 if single else np.float64
    for names in (["x3"], ["x7", "minus_x1", "p", "x1"]):
        got = {}
        for whole in ("0", "1"):  # a slab at a time, and data_2 read whole
            out = os.path.join(tmpdir_private, "d%s.csv" % whole)
            r = subprocess.run([cli, "convert", mat, out, *names], capture_output=True, text=True,
                               env=dict(os.environ, RTCOSIM_MAT_WHOLE=whole))
            assert r.returncode == 0, r.stderr
            with open(out, "rb") as f:
                got[whole] = f.read()
        assert got["0"] == got["1"]
        table = rows_of(out)
        assert table[0] == ["time"] + names and len(table) == 3002
        t = np.array([float(row[0]) for row in table[1:]])
        # (times to the nanosecond, as results hold them)
        assert np.abs(t - times.astype(kind).astype(np.float64)).max() <= 0.5e-9
        for i, name in enumerate(names, 1):
            want = {"minus_x1": -cols["x1"], "p": np.full(times.shape, 3.5)}.get(name, cols.get(name))
            want = want.astype(kind).astype(np.float64) if name != "p" else want
            assert [float(row[i]) for row in table[1:]] == list(want), name


def test_two_variables_of_a_large_mat_file_take_little_memory(cli, tmpdir_private):
    """200 variables x 50 000 time points (80 MB, MAT v4 binTrans as Dymola writes
    it): 2 of them converted in a fraction of what data_2 read whole takes, and all
    of them too (rows streamed to the recorder as the slabs are read)."""
    if instrumented(cli):
        pytest.skip("sanitizer build: resident memory is no measure")
    times = np.linspace(0, 50, 50000)
    cols = {"x%d" % k: times * k for k in range(1, 201)}
    mat = os.path.join(tmpdir_private, "big.mat")
    dymola_mat(mat, times, cols, True)
    peak = {}
    for whole in ("0", "1"):
        code = ("import resource, subprocess, sys\n"
                "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
                "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
        out = subprocess.run([sys.executable, "-c", code, cli, "convert", mat,
                              os.path.join(tmpdir_private, "two.csv"), "x5", "x200"],
                             check=True, capture_output=True, text=True,
                             env=dict(os.environ, RTCOSIM_MAT_WHOLE=whole))
        peak[whole] = int(out.stdout) / 1024
    table = rows_of(os.path.join(tmpdir_private, "two.csv"))
    assert float(table[-1][2]) == 50 * 200 and len(table) == 50001
    assert peak["0"] < 40 and peak["1"] > 80, peak
    # all 200 go a slab of time points at a time, no table held (it alone is 80 MB)
    out = subprocess.run([sys.executable, "-c", code, cli, "convert", mat,
                          os.path.join(tmpdir_private, "all.csv")],
                         check=True, capture_output=True, text=True)
    assert int(out.stdout) / 1024 < 40, out.stdout
    table = rows_of(os.path.join(tmpdir_private, "all.csv"))
    head = table[0]  # time, x1..x200, and the helper's negated alias and constant
    assert len(head) == 203 and len(table) == 50001
    assert float(table[-1][head.index("x200")]) == 50 * 200
    assert float(table[25000][head.index("x7")]) == times[24999] * 7
    assert float(table[25000][head.index("minus_x1")]) == -times[24999]
    assert float(table[25000][head.index("p")]) == 3.5


def test_a_long_csv_converts_a_line_at_a_time(cli, tmpdir_private):
    """300 000 rows x 20 columns (a units row, a text column, empty cells; 50 MB of
    values as doubles): read twice a line at a time, the CSV, MF4 and a window of
    named variables come out as the whole-file reference reader (RTCOSIM_CSV_WHOLE=1)
    makes them, in a few MB. Measured on a 2 M x 10 file (267 MB): the table read
    first took 178 MB (CSV out) and 186 MB (MF4 out), the scans 7 and 15 MB. The MF4
    back to CSV streams its records as well (that file's MF4: 205 -> 22 MB). MAT out
    is written as it goes too (data_2 was held whole: a 2 M-row CSV of 13 numeric
    columns to MAT took 247 MB and 3.8 s, now 14 MB and 1.6 s, the same file)."""
    src = os.path.join(tmpdir_private, "long.csv")
    rng = np.random.default_rng(11)
    block = rng.uniform(-50, 50, size=(1000, 19))
    tails = [",".join(f"{v:.5f}" if (i + k) % 97 else "" for k, v in enumerate(row)) + f',"s{i % 7}"'
             for i, row in enumerate(block)]
    with open(src, "w") as f:
        f.write('"time",' + ",".join(f'"v{k}"' for k in range(19)) + ',"state"\n')
        f.write('"s",' + ",".join('"V"' for _ in range(19)) + ',""\n')
        f.writelines(f"{i / 1000:.3f},{tails[i % 1000]}\n" for i in range(300_000))
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    cases = [("all.csv", []), ("all.mf4", []), ("all.mat", []), ("some.csv", ["v7", "v3", "--from", "12.5",
                                                               "--to", "200", "--csv-units"])]
    for name, extra in cases:
        got = {}
        for whole in ("0", "1"):
            out = os.path.join(tmpdir_private, whole + name)
            r = subprocess.run([sys.executable, "-c", probe, cli, "convert", src, out] + extra,
                               capture_output=True, text=True,
                               env=dict(os.environ, RTCOSIM_CSV_WHOLE=whole))
            code, peak = r.stdout.split()
            assert code == "0", (name, whole, r.stderr)
            if name.endswith(".mf4"):  # (its header holds the conversion's time: compare values)
                back = out + ".csv"
                assert subprocess.run([cli, "convert", out, back]).returncode == 0
                out = back
            with open(out, "rb") as f:
                got[whole] = f.read()
            if whole == "0" and not instrumented(cli):
                assert int(peak) < 30 * 1024, (name, peak)
        if name == "all.csv":  # the scan keeps the text column, which the table lacks
            scanned, whole = (list(csv.reader(got[w].decode().splitlines())) for w in "01")
            assert [r[:-1] for r in scanned] == whole
            assert scanned[0][-1] == "state"
            assert [r[-1] for r in scanned[1:]] == [f"s{i % 1000 % 7}" for i in range(300_000)]
        else:
            assert got["0"] == got["1"], name
    # that MF4 (one channel group) back to CSV: its records streamed, not its table
    # (45 MB of doubles), the same file as through the table (RTCOSIM_MDF_WHOLE=1)
    mf4, back = os.path.join(tmpdir_private, "0all.mf4"), {}
    for whole in ("0", "1"):
        back[whole] = os.path.join(tmpdir_private, f"back{whole}.csv")
        r = subprocess.run([sys.executable, "-c", probe, cli, "convert", mf4, back[whole]],
                           capture_output=True, text=True,
                           env=dict(os.environ, RTCOSIM_MDF_WHOLE=whole))
        code, peak = r.stdout.split()
        assert code == "0", r.stderr
        if whole == "0" and not instrumented(cli):
            assert int(peak) < 30 * 1024, peak
    with open(back["0"], "rb") as a, open(back["1"], "rb") as b:
        assert a.read() == b.read()
    # what the file says: row 12 500 of v3 (the block's row 500)
    table = rows_of(os.path.join(tmpdir_private, "0some.csv"))
    assert table[0] == ["time", "v7", "v3"] and table[1] == ["s", "V", "V"]
    assert table[2][0] == "12.5" and float(table[2][2]) == float(f"{block[500, 3]:.5f}")
    assert len(table) == 2 + 187_501
    assert rows_of(os.path.join(tmpdir_private, "0all.csv"))[0][-2:] == ["v18", "state"]


def test_raster_resamples_as_numpy_interp_and_holds(cli, tmpdir_private):
    """--raster STEP: the rows on a grid from the first row (or --from) to the
    last (or --to), linear between the rows around each point exactly as
    numpy.interp computes it (slope times distance plus the value before),
    with --hold the last row at or before it; the same from an MF4 of the
    same rows (streamed records); a jump's later row after it, by hand."""
    rng = np.random.default_rng(5)
    times = np.cumsum(rng.integers(1, 40, size=400)) / 1000  # irregular, whole ms
    values = np.cumsum(rng.normal(size=400))
    src = os.path.join(tmpdir_private, "irregular.csv")
    with open(src, "w") as f:
        f.write('"time","x"\n' + "".join(f"{t:.3f},{v!r}\n" for t, v in zip(times, values)))
    mf4 = os.path.join(tmpdir_private, "irregular.mf4")
    assert run(cli, src, mf4).returncode == 0
    grid_from = lambda t0, t1: np.arange(round(t0 * 100), round(t1 * 100) + 1) / 100
    for source in (src, mf4):
        out = os.path.join(tmpdir_private, "r.csv")
        r = run(cli, source, out, "--raster", "0.01")
        assert r.returncode == 0, r.stderr
        got = np.array([[float(x) for x in row] for row in rows_of(out)[1:]])
        grid = np.arange(0, int(np.floor((times[-1] - times[0]) / 0.01 + 1e-9)) + 1) * 0.01
        grid = np.array([float(f"{times[0] + g:.9f}") for g in grid])  # (ns ticks, as written)
        assert np.array_equal(got[:, 0], grid), (source, got[:5, 0], grid[:5])
        assert np.array_equal(got[:, 1], np.interp(grid, times, values)), source
        r = run(cli, source, out, "--raster", "0.01", "--hold", "--from", "0.5", "--to", "2")
        assert r.returncode == 0, r.stderr
        got = np.array([[float(x) for x in row] for row in rows_of(out)[1:]])
        grid = grid_from(0.5, 2.0)
        grid = grid[grid >= times[0]]
        held = values[np.searchsorted(times, grid, side="right") - 1]
        assert np.array_equal(got[:, 0], grid) and np.array_equal(got[:, 1], held), source
    # by hand: a jump at 0.02 s (2 then 5): the point there takes the later row
    jump = os.path.join(tmpdir_private, "jump.csv")
    with open(jump, "w") as f:
        f.write('"time","x"\n0,0\n0.013,1.3\n0.02,2\n0.02,5\n0.047,6\n')
    out = os.path.join(tmpdir_private, "j.csv")
    # the rows said are those written, the point at the last row's time too
    r = run(cli, jump, out, "--raster", "0.001")
    assert r.returncode == 0 and r.stdout == f"{out}: 48 rows of 1 variable\n", r.stdout
    assert len(rows_of(out)) == 1 + 48 and rows_of(out)[-1] == ["0.047", "6"]
    assert run(cli, jump, out, "--raster", "0.01").returncode == 0
    got = [[float(x) for x in row] for row in rows_of(out)[1:]]
    assert [t for t, _ in got] == [0, 0.01, 0.02, 0.03, 0.04]
    assert got[2][1] == 5 and abs(got[1][1] - 1.0) < 1e-15 and abs(got[3][1] - (5 + 1 / 2.7)) < 1e-14
    assert run(cli, jump, out, "--raster", "0.01", "--hold").returncode == 0
    assert [float(row[1]) for row in rows_of(out)[1:]] == [0, 0, 5, 5, 5]
    for bad, text in ((["--raster", "0"], "--raster needs a step in seconds > 0"),
                      (["--raster", "x"], "--raster needs a step in seconds > 0"),
                      (["--hold"], "--hold goes with --raster"),
                      (["--raster", "1e-10"], "is not a step of whole nanoseconds")):
        r = run(cli, jump, out, *bad)
        assert r.returncode == 1 and text in r.stderr, (bad, r.stderr)


def test_text_columns_stay_in_a_csv(cli, tmpdir_private):
    """A CSV to a CSV keeps its columns of text (a String output, Binary hex) as
    quoted text, read back by Python's csv module the same as written: commas,
    quotes and line breaks in a cell, an empty cell; in a window, a named
    selection and on a raster, where text holds the row at or before each point
    (it cannot be interpolated). MAT and MF4, which hold no text here, leave
    them out and say so."""
    src = os.path.join(tmpdir_private, "text.csv")
    cells = ["a, b", 'say "hi"', "two\nlines", "", "é ü"]
    with open(src, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        w.writerow(["time", "x", "label", "raw"])
        for i, c in enumerate(cells):
            w.writerow([i * 0.5, float(i), c, "0a1b" if i % 2 else "ff"])
    out = os.path.join(tmpdir_private, "out.csv")
    r = run(cli, src, out)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout == f"{out}: 5 rows of 3 variables\n"
    rows = rows_of(out)
    assert rows[0] == ["time", "x", "label", "raw"]
    assert [row[2] for row in rows[1:]] == cells
    assert [row[3] for row in rows[1:]] == ["ff", "0a1b", "ff", "0a1b", "ff"]
    assert [float(row[1]) for row in rows[1:]] == [0, 1, 2, 3, 4]
    r = run(cli, src, out, "label", "--from", "0.5", "--to", "1.5")
    assert r.returncode == 0, r.stderr
    assert rows_of(out) == [["time", "label"], ["0.5", 'say "hi"'], ["1", "two\nlines"],
                            ["1.5", ""]]
    r = run(cli, src, out, "--raster", "0.25")
    assert r.returncode == 0, r.stderr
    got = rows_of(out)[1:]
    assert [float(row[0]) for row in got] == [k * 0.25 for k in range(9)]
    assert [float(row[1]) for row in got] == [k * 0.5 for k in range(9)]
    assert [row[2] for row in got] == [cells[k // 2] for k in range(9)]
    for other in ("out.mat", "out.mf4"):
        r = run(cli, src, os.path.join(tmpdir_private, other))
        assert r.returncode == 0, r.stderr
        assert "left out 2 columns of text" in r.stderr, r.stderr


def test_a_symbolic_link_at_the_output_stays_a_link(cli, tmpdir_private):
    """Results finished through a temporary file and a rename (a plot; an .mf4
    whose records are compressed at the end, past 1 MiB) go where a symbolic
    link at the output path leads, and the link stays: `latest.svg ->
    runs/plot.svg` is how a results folder points at the newest run. Also a
    dangling link (the run's file not there yet)."""
    runs = os.path.join(tmpdir_private, "runs")
    os.mkdir(runs)
    src = os.path.join(tmpdir_private, "d.csv")
    with open(src, "w") as f:
        f.write('"time","x"\n0,1\n1,2\n')
    svg = os.path.join(tmpdir_private, "latest.svg")
    os.symlink("runs/plot.svg", svg)  # dangling until the plot is written
    r = subprocess.run([cli, "plot", src, "-o", svg], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert os.path.islink(svg) and os.readlink(svg) == "runs/plot.svg"
    with open(os.path.join(runs, "plot.svg")) as f:
        assert "<svg" in f.read(4096)
    back = os.path.join(tmpdir_private, "back.csv")

    def simulated_through_link(name, *options):
        """Dahlquist simulated to latest.EXT -> runs/r.EXT (an older run
        there): the link stays, the run's rows read back from it."""
        link, target = os.path.join(tmpdir_private, "latest" + name), os.path.join(runs, "r" + name)
        with open(target, "w") as f:
            f.write("an older run\n")
        os.symlink(target, link)
        r = subprocess.run([cli, "simulate", fmu("Dahlquist-fmi2.fmu"), *options, "-o", link],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert os.path.islink(link) and os.readlink(link) == target
        assert run(cli, link, back).returncode == 0
        return target, rows_of(back)

    target, rows = simulated_through_link(".mf4", "--stop-time", "20", "--output-interval", "1e-4")
    assert len(rows) == 1 + 200_001 and rows[-1][0] == "20"
    assert os.path.getsize(target) < 200_001 * 16  # its records compressed (DZ blocks)
    # A .mat results file made through a link (its header written whole
    # first, then streamed): the link stays, the older file it leads to gets
    # the run (the link was replaced by a plain file, its target left empty).
    _, rows = simulated_through_link(".mat", "--stop-time", "0.01")
    assert len(rows) == 1 + 101 and float(rows[-1][0]) == 0.01
