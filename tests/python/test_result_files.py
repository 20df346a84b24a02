"""write_result and plot_result: CSV byte for byte as the CLI writes it, MAT
files read back with scipy.io.loadmat in the Dymola layout and compared
value by value with the CSV; plots checked on the figure (lines, units,
panels) and for layout by measuring the label, tick label and legend boxes."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import rtcosim
from conftest import fmu, source
from test_simulate import read_csv

import scipy.io as scipy_io  # python3-scipy (scripts/deps.sh)


def ball(**kwargs):
    return rtcosim.simulate(fmu("BouncingBall-fmi3.fmu"), stop_time=2, output_interval=0.01,
                            output=["h", "v", "g"], **kwargs)


def loadmat(path):
    return scipy_io.loadmat(path, chars_as_strings=False)  # char matrices as they are


def mat_strings(matrix):
    """binTrans char matrices: one string per column."""
    return ["".join(matrix[:, k]).rstrip() for k in range(matrix.shape[1])]


def test_csv_equals_the_clis_byte_for_byte(cli, tmpdir_private):
    args = ["--stop-time", "2", "--output-interval", "0.01", "--output-variable", "h",
            "--output-variable", "v", "--output-variable", "g"]
    for extra, kwargs in (([], {}), (["--csv-units"], dict(csv_units=True))):
        ours, theirs = (os.path.join(tmpdir_private, n) for n in ("ours.csv", "cli.csv"))
        rtcosim.write_result(ball(), ours, **kwargs)
        subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "-o", theirs] + args
                       + extra, check=True)
        with open(ours, "rb") as a, open(theirs, "rb") as b:
            assert a.read() == b.read()
    with open(ours) as f:
        assert f.read().split("\n")[1] == '"s","m","m/s","m/s2"'


def test_mf4_holds_what_the_clis_holds(cli, tmpdir_private):
    """write_result(r, 'r.mf4') and `simulate -o r.mf4`: the same records (the
    DT block byte for byte) and channel texts (names, units, descriptions);
    only the start and history times differ."""
    ours, theirs = (os.path.join(tmpdir_private, n) for n in ("ours.mf4", "cli.mf4"))
    rtcosim.write_result(ball(), ours)
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "-o", theirs, "--stop-time",
                    "2", "--output-interval", "0.01", "--output-variable", "h",
                    "--output-variable", "v", "--output-variable", "g"], check=True)
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        a, b = a.read(), b.read()
    assert a[:16] == b"MDF     4.10    "
    assert a.split(b"##DT")[1] == b.split(b"##DT")[1] and len(a.split(b"##DT")[1]) > 200 * 32
    # a TX block: "##TX", 4 reserved bytes, its length and (no) links, its text
    texts = lambda d: [t[20:].split(b"\0")[0].decode() for t in d.split(b"##TX")[1:]]
    assert texts(a) == texts(b)
    assert {"time", "s", "h", "m", "Height of the ball, h(start) = h0", "m/s2"} <= set(texts(a))


def test_long_mf4_is_compressed_and_reads_back_bit_for_bit(cli, tmpdir_private):
    """Over 1 MiB of records (200001 rows of 24 bytes) the MDF file holds
    them in DZ blocks (transposed and deflated, listed by a DL block) instead
    of one DT block: a fraction of the size, the same values as the CSV of the
    same run, read back through rtcosim.read_result."""
    out = {}
    for ext in ("mf4", "csv"):
        out[ext] = os.path.join(tmpdir_private, "long." + ext)
        subprocess.run([cli, "simulate", fmu("BouncingBall-fmi2.fmu"), "--stop-time", "100",
                        "--output-interval", "0.0005", "-o", out[ext]], check=True,
                       stdout=subprocess.DEVNULL)
    with open(out["mf4"], "rb") as f:
        data = f.read()
    assert b"##DT" not in data and data.count(b"##DZ") == 2 and data.count(b"##DL") == 1
    assert len(data) < 200001 * 24 / 4  # (a ball at rest compresses well)
    header, rows = read_csv(out["csv"])
    r = rtcosim.read_result(out["mf4"])
    assert list(r.dtype.names) == header and len(r) == len(rows) == 200001
    for i, name in enumerate(header):
        assert np.array_equal(r[name], [float(row[i]) for row in rows]), name


def long_run_peak_kb(cli, out):
    """The peak memory (kB) of a 2000 s run of the bouncing ball recorded
    every 1 ms (2 000 001 rows) into out, conversion at close included."""
    if "ASAN_OPTIONS" in os.environ:
        pytest.skip("under AddressSanitizer the peak memory is the sanitizer's")
    probe = ("import resource, subprocess, sys; "
             "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    return int(subprocess.run([sys.executable, "-c", probe, cli, "simulate",
                               fmu("BouncingBall-fmi2.fmu"), "--stop-time", "2000",
                               "--output-interval", "0.001", "-o", out],
                              check=True, capture_output=True, text=True).stdout)


def info_peak_kb(cli, path):
    """The peak resident memory of `rtcosim info path`, in KiB."""
    probe = ("import resource, subprocess, sys; "
             "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    return int(subprocess.run([sys.executable, "-c", probe, cli, "info", path], check=True,
                              capture_output=True, text=True).stdout)


def test_a_long_runs_mf4_is_written_a_row_at_a_time(cli, tmpdir_private):
    """2 000 001 rows (2000 s at 1 ms): the records go to the file as the run
    goes (once a CSV converted at close, a row at a time; before that every
    cell held as text: 151 MB for this run), so the process's peak memory
    stays far below the rows'; the file holds them all, and `info` of it walks the records
    a data block at a time (119 MB before: the data and every value read
    whole), with the extremes of the bouncing ball (h from 0 to its start, 1 m)."""
    out = os.path.join(tmpdir_private, "long.mf4")
    peak_kb = long_run_peak_kb(cli, out)
    assert peak_kb < 48 * 1024, peak_kb
    info = subprocess.run([cli, "info", out], check=True, capture_output=True, text=True).stdout
    assert "1      2000001 0 .. 2000 s" in info, info
    assert re.search(r"\n1 +2000001 +0 \.\. 2000 s +h +m +0 +1 0\n", info), info
    if "ASAN_OPTIONS" not in os.environ:  # (the sanitizer's own memory)
        assert info_peak_kb(cli, out) < 32 * 1024


def test_a_long_runs_mat_holds_the_matrix_only(cli, tmpdir_private):
    """2 000 001 rows of 3 variables: the MAT conversion reads the recorder's
    CSV a row at a time (twice) into data_2, which matio writes without a
    copy, so the peak memory is about the matrix's 48 MB (226 MB before: the
    CSV's cells as text and a copy of the matrix); every row is there."""
    out = os.path.join(tmpdir_private, "long.mat")
    peak_kb = long_run_peak_kb(cli, out)
    assert peak_kb < 80 * 1024, peak_kb
    m = loadmat(out)
    data_2 = m["data_2"]
    assert data_2.shape == (3, 2000001)
    assert data_2[0, 0] == 0.0 and data_2[0, -1] == 2000.0 and data_2[0, 1000] == 1.0
    # `info` sums it up a slab of time points at a time (63 MB with the table of
    # every column before): the ball's height from 0 to its start, 1 m
    info = subprocess.run([cli, "info", out], check=True, capture_output=True, text=True).stdout
    assert "rows                 2000001, time 0 .. 2000, step 0.001" in info, info
    assert re.search(r"\nh +m +0 +1 0\n", info), info
    if "ASAN_OPTIONS" not in os.environ:  # (the sanitizer's own memory)
        assert info_peak_kb(cli, out) < 32 * 1024


def test_mat_has_the_dymola_layout_and_the_csv_values(tmpdir_private):
    r = ball()
    csv_path, mat_path = (os.path.join(tmpdir_private, n) for n in ("r.csv", "r.mat"))
    rtcosim.write_result(r, csv_path)
    rtcosim.write_result(r, mat_path)
    m = loadmat(mat_path)
    # Aclass: 4 rows, the layout's name and version, binTrans (one name per column).
    assert ["".join(row).rstrip() for row in m["Aclass"]] == ["Atrajectory", "1.1", "", "binTrans"]
    names = mat_strings(m["name"])
    descriptions = mat_strings(m["description"])
    assert names == ["time", "h", "v", "g"]
    assert descriptions[0] == "Time [s]"
    assert descriptions[1] == "Height of the ball, h(start) = h0 [m]"
    assert descriptions[3] == "Gravity acceleration (< 0) [m/s2]"
    info = m["dataInfo"]
    assert info.shape == (4, 4)
    # time: abscissa; h, v: rows 2, 3 of data_2; g keeps one value: row 2 of data_1.
    assert [list(info[:, k]) for k in range(4)] == [[0, 1, 0, -1], [2, 2, 0, -1], [2, 3, 0, -1],
                                                    [1, 2, 0, 0]]
    data_1, data_2 = m["data_1"], m["data_2"]
    header, rows = read_csv(csv_path)
    assert data_2.shape == (3, len(rows)) and data_1.shape == (2, 2)
    for i, row in enumerate(rows):  # value by value, bit for bit
        assert data_2[0, i] == float(row[0])
        assert data_2[1, i] == float(row[header.index("h")])
        assert data_2[2, i] == float(row[header.index("v")])
    assert list(data_1[0]) == [0.0, 2.0]  # time start and stop
    assert list(data_1[1]) == [float(rows[0][3])] * 2 == [-9.81, -9.81]
    # And the CSV's values are the result's.
    assert np.array_equal(data_2[1], r["h"]) and np.array_equal(data_2[2], r["v"])


def test_plain_arrays_and_text_columns_are_written(tmpdir_private):
    plain = np.zeros(3, dtype=[("time", np.float64), ("n", np.int32), ("on", np.bool_),
                               ("s", object)])
    plain["time"] = [0, 0.5, 1]
    plain["n"] = [1, -2, 3]
    plain["on"] = [True, False, True]
    plain["s"] = ["a", 'b"c', ""]
    path = os.path.join(tmpdir_private, "p.csv")
    rtcosim.write_result(plain, path)
    with open(path) as f:
        assert f.read() == ('"time","n","on","s"\n0,1,1,"a"\n0.5,-2,0,"b""c"\n1,3,1,""\n')
    mat = os.path.join(tmpdir_private, "p.mat")
    rtcosim.write_result(plain, mat)
    m = loadmat(mat)
    assert mat_strings(m["name"]) == ["time", "n", "on"]  # strings have no place in a matrix
    assert list(m["data_2"][1]) == [1, -2, 3] and list(m["data_2"][2]) == [1, 0, 1]


def test_a_string_with_line_breaks_reads_back(cli, tmpdir_private):
    """A String value holding line breaks, quotes and commas is written as
    one quoted field (RFC 4180 2.6) and read back by read_result, info and
    compare (they had stopped at its first line break: "missing closing
    quote"); Python's csv module, the other side, reads the same rows."""
    text = 'a\nb"q, c\n'
    out = os.path.join(tmpdir_private, "s.csv")
    subprocess.run([cli, "simulate", fmu("Feedthrough-fmi3.fmu"), "--stop-time", "1",
                    "--output-interval", "1", "--start-value", "String_input", text,
                    "--output-variable", "String_output", "--output-variable", "Int32_output",
                    "-o", out], check=True)
    import csv
    with open(out, newline="") as f:
        assert list(csv.reader(f)) == [["time", "String_output", "Int32_output"],
                                       ["0", text, "0"], ["1", text, "0"]]
    back = rtcosim.read_result(out)
    assert list(back["String_output"]) == [text, text] and list(back["time"]) == [0, 1]
    info = subprocess.run([cli, "info", out], capture_output=True, text=True)
    assert info.returncode == 0 and "rows                 2, time 0 .. 1" in info.stdout, info.stderr
    same = subprocess.run([cli, "compare", out, out], capture_output=True, text=True)
    assert same.returncode == 0 and "MATCHES" in same.stdout, same.stderr


def test_cells_that_are_no_number_are_said_once(tmpdir_private):
    """A column of numbers with a spreadsheet's "n/a" or a decimal comma in
    some cells: read as NaN there, and read_result says which column and how
    many cells (it said nothing); a column all text stays a str column, and
    a file without such cells reads without a warning."""
    path = os.path.join(tmpdir_private, "n.csv")
    with open(path, "w") as f:
        f.write('time,x,y,label\n0,1,n/a,a\n1,"2,5",3,b\n2,3,n/a,c\n')
    with pytest.warns(UserWarning) as caught:
        r = rtcosim.read_result(path)
    assert len(caught) == 1
    assert str(caught[0].message) == (path + ": column 'x': 1 cell is not a number; column 'y': "
                                      "2 cells are not a number (read as NaN)")
    assert np.isnan(r["x"][1]) and list(r["x"][[0, 2]]) == [1, 3]
    assert np.isnan(r["y"][0]) and r["y"][1] == 3 and np.isnan(r["y"][2])
    assert list(r["label"]) == ["a", "b", "c"]
    with open(path, "w") as f:
        f.write("time,x\n0,1\n1,\n")  # (an empty cell is no value, not text)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = rtcosim.read_result(path)
    assert r["x"][0] == 1 and np.isnan(r["x"][1])


def test_unknown_extension_is_refused_and_nothing_written(tmpdir_private):
    path = os.path.join(tmpdir_private, "r.xlsx")
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.write_result(ball(), path)
    assert e.value.status == "EINVAL" and "'.xlsx'" in str(e.value) and ".mat" in str(e.value)
    assert os.listdir(tmpdir_private) == []
    with pytest.raises(rtcosim.Error):
        rtcosim.write_result(np.zeros(2, dtype=[("x", float)]), path + ".csv")


def boxes_overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_plot_has_a_panel_per_unit_with_the_units_on_its_axis(tmpdir_private):
    from matplotlib.image import imread  # python3-matplotlib (scripts/deps.sh)
    r = ball()
    path = os.path.join(tmpdir_private, "ball.png")
    figure = rtcosim.plot_result(r, names=["h", "v"], filename=path, title="Bouncing ball")
    axes = figure.get_axes()
    assert len(axes) == 2  # m and m/s: one panel each
    assert [a.get_ylabel() for a in axes] == ["h [m]", "v [m/s]"]
    assert axes[-1].get_xlabel() == "time [s]" and axes[0].get_xlabel() == ""
    for ax, name in zip(axes, ["h", "v"]):
        (line,) = ax.get_lines()
        assert line.get_label() == name
        assert np.array_equal(line.get_xdata(), r["time"])
        assert np.array_equal(line.get_ydata(), r[name])
    assert axes[0].get_shared_x_axes().joined(axes[0], axes[1])
    image = imread(path)  # a real PNG of the figure's size
    assert image.shape[:2] == (round(figure.get_figheight() * figure.dpi),
                               round(figure.get_figwidth() * figure.dpi))
    assert image[:, :, :3].std() > 0.05  # not blank
    # Layout: no y label on its tick labels, no panel's labels on another's.
    renderer = figure.canvas.get_renderer()
    for ax in axes:
        label = ax.yaxis.label.get_window_extent(renderer)
        for tick in ax.get_yticklabels():
            if tick.get_text():
                assert not boxes_overlap(label, tick.get_window_extent(renderer))
    top, bottom = (a.get_tightbbox(renderer) for a in axes)
    assert top.y0 >= bottom.y1 - 1


def test_one_panel_with_a_legend_inside_the_frame(tmpdir_private):
    r = rtcosim.System(source("examples", "oscillator", "oscillator.ssd")).run(stop_time=1)
    figure = rtcosim.plot_result(r, names=["mass1.x", "mass2.x", "mass2.F"], panels="one",
                                 filename=os.path.join(tmpdir_private, "o.svg"))
    (ax,) = figure.get_axes()
    assert [line.get_label() for line in ax.get_lines()] == ["mass1.x", "mass2.x", "mass2.F"]
    assert ax.get_ylabel() == "value"  # m and N share the panel: no one unit
    renderer = figure.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    frame = ax.get_window_extent(renderer)
    assert frame.x0 <= legend.x0 and legend.x1 <= frame.x1
    assert frame.y0 <= legend.y0 and legend.y1 <= frame.y1
    # auto: the two positions (m) share a panel with a legend, the force (N) has its own.
    figure = rtcosim.plot_result(r, names=["mass1.x", "mass2.x", "mass2.F"],
                                 filename=os.path.join(tmpdir_private, "o.png"))
    assert [a.get_ylabel() for a in figure.get_axes()] == ["[m]", "mass2.F [N]"]
    assert [len(a.get_lines()) for a in figure.get_axes()] == [2, 1]
    assert os.path.getsize(os.path.join(tmpdir_private, "o.png")) > 1000


def test_plot_errors_name_the_problem(tmpdir_private, monkeypatch):
    r = ball()
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.plot_result(r, names=["hh"], filename=os.path.join(tmpdir_private, "x.png"))
    assert "'hh'" in str(e.value) and "did you mean 'h'" in str(e.value)
    # Without matplotlib: a clear message naming the Debian package.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError) as e:
        rtcosim.plot_result(r, filename=os.path.join(tmpdir_private, "x.png"))
    assert "python3-matplotlib" in str(e.value)
    assert os.listdir(tmpdir_private) == []


def test_a_mat_result_file_is_an_input(tmpdir_private):
    """simulate(input="x.mat"): a result file in the Dymola layout, written by
    scipy in binNormal orientation (a name a row, data_2 a column a
    variable), gives what the same table as an array gives."""
    names = ["time", "Float64_continuous_input", "Float64_discrete_input", "Int32_input",
             "Boolean_input"]
    points = [(0.0, 1.0, 10.0, 3, 1), (0.5, 2.0, 20.0, -4, 0), (1.0, 0.0, 30.0, 7, 1)]
    width = max(len(n) for n in names)
    path = os.path.join(tmpdir_private, "in.mat")
    scipy_io.savemat(path, {
        "Aclass": np.array(["Atrajectory", "1.1".ljust(11), " " * 11, "binNormal".ljust(11)]),
        "name": np.array([n.ljust(width) for n in names]),
        "description": np.array([" " * 4] * len(names)),
        "dataInfo": np.array([[0, 1, 0, -1]] + [[2, k + 1, 0, -1] for k in range(1, 5)],
                             dtype=np.int32),
        "data_1": np.array([[0.0], [1.0]]),
        "data_2": np.array(points, dtype=float),
    }, format="4")
    table = np.array(points, dtype=[("time", float), ("Float64_continuous_input", float),
                                    ("Float64_discrete_input", float), ("Int32_input", np.int32),
                                    ("Boolean_input", bool)])
    outputs = ["Float64_continuous_output", "Float64_discrete_output", "Int32_output",
               "Boolean_output"]
    from_mat = rtcosim.simulate(fmu("Feedthrough-fmi2.fmu"), stop_time=1, output_interval=0.125,
                                input=path, output=outputs)
    from_array = rtcosim.simulate(fmu("Feedthrough-fmi2.fmu"), stop_time=1,
                                  output_interval=0.125, input=table, output=outputs)
    assert from_mat.tolist() == from_array.tolist()
    # By hand: a row shows the inputs of its step's start (fmusim's order):
    # at 0.25 those of 0.125 (1.25 linear, the rest held), at 0.625 those of 0.5.
    row = from_mat[from_mat["time"] == 0.25][0]
    assert row["Float64_continuous_output"] == 1.25 and row["Float64_discrete_output"] == 10.0
    assert row["Int32_output"] == 3 and row["Boolean_output"]
    row = from_mat[from_mat["time"] == 0.625][0]
    assert row["Float64_continuous_output"] == 2.0 and row["Float64_discrete_output"] == 20.0
    assert row["Int32_output"] == -4 and not row["Boolean_output"]
    with pytest.raises(rtcosim.Error, match="absent.mat: cannot open"):
        rtcosim.simulate(fmu("Feedthrough-fmi2.fmu"), input=os.path.join(tmpdir_private,
                                                                        "absent.mat"))


def test_read_result_gives_back_what_each_file_holds(cli, tmpdir_private):
    """read_result of the CLI's CSV (with and without units), MAT and MF4 files of one
    run: the CSV's values bit for bit (every file holds the run's doubles), the
    variables' units; a CSV's text column left out with a warning; a hand-built
    two-rate MDF 4 measurement (tests/results/mdf_build.py) on the union of its groups'
    times, each channel holding its last sample, NaN before its first and for its
    invalid sample, as its builder's docstring lays it out; bad files raise naming
    the file."""
    args = ["--stop-time", "1", "--output-interval", "0.01"]
    paths = {}
    for ext, extra in (("csv", []), ("units.csv", ["--csv-units"]), ("mat", []), ("mf4", [])):
        paths[ext] = os.path.join(tmpdir_private, "ball." + ext)
        subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "-o", paths[ext]] + args
                       + extra, check=True, stdout=subprocess.DEVNULL)
    header, rows = read_csv(paths["csv"])
    assert len(rows) == 101
    for ext, path in paths.items():
        r = rtcosim.read_result(path)
        assert list(r.dtype.names) == header, (ext, r.dtype.names)
        for i, name in enumerate(header):  # the CSV's shortest decimals read back bit for bit
            assert list(r[name]) == [float(row[i]) for row in rows], (ext, name)
        if ext != "csv":  # (a CSV without its units row has none)
            assert r.units["h"] == "m" and r.units["v"] == "m/s", (ext, r.units)
    plain = np.zeros(2, dtype=[("time", np.float64), ("x", np.float64), ("s", object)])
    plain["time"], plain["x"], plain["s"] = [0, 1], [0.5, -1.5], ["a", "b"]
    text = os.path.join(tmpdir_private, "text.csv")
    rtcosim.write_result(plain, text)
    r = rtcosim.read_result(text)  # text columns back as str, in the file's order
    assert r.dtype.names == ("time", "x", "s") and list(r["x"]) == [0.5, -1.5]
    assert list(r["s"]) == ["a", "b"]
    # a String FMU's CSV (with its units row, and without): the String outputs as
    # simulate gives them, quotes and all, the numbers as numbers
    strings = rtcosim.simulate(fmu("Strings-fmi2.fmu"), stop_time=0.03, output_interval=0.01)
    for extra in ([], ["--csv-units"]):
        out = os.path.join(tmpdir_private, "strings.csv")
        subprocess.run([cli, "simulate", fmu("Strings-fmi2.fmu"), "--stop-time", "0.03",
                        "--output-interval", "0.01", "-o", out] + extra, check=True,
                       stdout=subprocess.DEVNULL)
        r = rtcosim.read_result(out)
        assert r.dtype.names == strings.dtype.names, (extra, r.dtype.names)
        for name in ("String_output", "Steps_output"):
            assert list(r[name]) == list(strings[name]), (extra, name, list(r[name]))
        assert list(r["Length_output"]) == [float(v) for v in strings["Length_output"]]
    sys.path.insert(0, source("tests", "results"))
    from mdf_build import measurement
    rig = os.path.join(tmpdir_private, "rig.mf4")
    with open(rig, "wb") as f:
        f.write(measurement().data)
    r = rtcosim.read_result(rig)
    assert list(r["time"]) == [k / 16 for k in range(8)]
    nan = float("nan")
    want = {"Float64_continuous_input": [0, 0, 1, 1, 2, 2, 3, 3],  # -1 + 0.5 x, 1/8 s apart
            "Float64_discrete_input": [nan, -3, -3, -3, -3, nan, nan, 100],
            "Int32_input": [5, 5, 5, 10, 10, 10, 15, 15]}
    for name, values in want.items():
        assert np.array_equal(r[name], values, equal_nan=True), (name, list(r[name]))
    assert r.units["Float64_continuous_input"] == "V"
    for path, what in ((os.path.join(tmpdir_private, "absent.mf4"), "cannot open"),
                       (fmu("BouncingBall-fmi3.fmu"), "a zip archive")):
        with pytest.raises(rtcosim.Error, match=what) as e:
            rtcosim.read_result(path)
        assert path in str(e.value)
