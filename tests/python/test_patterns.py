"""Variables named by shell patterns (fnmatch(3): '*', '?', '[...]') in
`rtcosim convert`, `compare`, `plot` and rtcosim.read_result: a pattern
stands for the columns it matches, in the file's order, each once; a name
that is a column is that column even with pattern characters (an FMI 3.0
array element "y[2]"); a pattern that matches nothing is an error naming it.
Truth: the example vehicle's own CSV header (its column order read by
Python's csv module) filtered with Python's fnmatch.fnmatchcase, and the
StateSpace FMU's array elements y[1]..y[3]."""
import csv
import fnmatch
import html
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

import rtcosim
from conftest import fmu, source


def header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


@pytest.fixture(scope="module")
def vehicle():
    folder = tempfile.mkdtemp(prefix="rtcosim-pytest-")
    path = os.path.join(folder, "vehicle.csv")
    subprocess.run([os.environ["RTCOSIM_CLI"], "run", source("examples", "vehicle", "vehicle.ssd"),
                    "--stop-time", "0.5", "-q", "-o", path], check=True, capture_output=True)
    yield path
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tmp_path(tmpdir_private):
    return pathlib.Path(tmpdir_private)


def expected(columns, *patterns):
    """Each pattern's matches in file order, a column once (Python's rule)."""
    out = []
    for p in patterns:
        out += [c for c in columns if fnmatch.fnmatchcase(c, p) and c not in out]
    return out


@pytest.mark.parametrize("out_name", ["sel.csv", "sel.mat", "sel.mf4"])
def test_convert_keeps_the_matching_columns_in_file_order(cli, vehicle, tmp_path, out_name):
    columns = header(vehicle)[1:]
    patterns = ("engine.*", "*speed*", "body.?peed")  # body.speed twice: once
    want = expected(columns, *patterns)
    assert len(want) >= 6 and "body.speed" in want, want
    out = str(tmp_path / out_name)
    r = subprocess.run([cli, "convert", vehicle, out, *patterns], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    back = str(tmp_path / "back.csv")
    if not out.endswith(".csv"):
        assert subprocess.run([cli, "convert", out, back], capture_output=True).returncode == 0
        out = back
    assert header(out) == ["time"] + want


def test_a_pattern_that_matches_nothing_is_an_error(cli, vehicle, tmp_path):
    out = str(tmp_path / "none.csv")
    # (an MDF file is read only for the channel groups that hold a name: for
    # none, no rows, which compare said instead of the name)
    mf4 = str(tmp_path / "vehicle.mf4")
    assert subprocess.run([cli, "convert", vehicle, mf4], capture_output=True).returncode == 0
    for args in (["convert", vehicle, out, "engine.*", "gearbox.*"],
                 ["plot", vehicle, "gearbox.*", "-o", str(tmp_path / "p.svg")],
                 ["compare", vehicle, vehicle, "gearbox.*"],
                 ["compare", mf4, mf4, "gearbox.*"], ["convert", mf4, out, "gearbox.*"]):
        r = subprocess.run([cli, *args], capture_output=True, text=True)
        assert r.returncode in (1, 2) and r.returncode == (2 if args[0] == "compare" else 1), r
        assert "no variable matches 'gearbox.*'" in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1, r.stderr
    assert not os.path.exists(out)


def test_compare_checks_every_matching_variable(cli, vehicle):
    columns = header(vehicle)[1:]
    r = subprocess.run([cli, "compare", vehicle, vehicle, "body.*", "--report", "/dev/stdout"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = expected(columns, "body.*")
    assert f"MATCHES: {len(want)} of {len(want)} variables within tolerance" in r.stdout, r.stdout
    for name in want:
        assert f"\n{name} " in r.stdout, name


def test_plot_draws_the_matching_variables(cli, vehicle, tmp_path):
    svg = str(tmp_path / "p.svg")
    r = subprocess.run([cli, "plot", vehicle, "transmission.*", "-o", svg], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    with open(svg) as f:
        text = html.unescape(f.read())  # (PLplot writes the labels as character references)
    for name in expected(header(vehicle)[1:], "transmission.*"):
        assert name in text, name
    assert "engine.rpm" not in text


def test_an_array_element_is_its_own_column_not_a_pattern(cli, tmp_path):
    csv_path = str(tmp_path / "ss.csv")
    subprocess.run([cli, "simulate", fmu("StateSpace-fmi3.fmu"), "-q", "-o", csv_path],
                   check=True, capture_output=True)
    assert header(csv_path) == ["time", "y[1]", "y[2]", "y[3]"]
    out = str(tmp_path / "out.csv")
    for names, want in ((["y[2]"], ["y[2]"]), (["y*"], ["y[1]", "y[2]", "y[3]"]),
                        (["y[3]", "y*"], ["y[3]", "y[1]", "y[2]"])):
        r = subprocess.run([cli, "convert", csv_path, out, *names], capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        assert header(out) == ["time"] + want, names
    # "y[12]" is no column: as a pattern it would match y1 or y2, which there are not
    r = subprocess.run([cli, "convert", csv_path, out, "y[12]"], capture_output=True, text=True)
    assert r.returncode == 1 and "no variable matches 'y[12]'" in r.stderr, r.stderr


def test_read_result_takes_patterns(vehicle, tmp_path):
    r = rtcosim.read_result(vehicle, variables=["engine.*", "body.speed"])
    want = expected(header(vehicle)[1:], "engine.*", "body.speed")
    # the library returns the columns in the file's order
    assert list(r.dtype.names) == ["time"] + [c for c in header(vehicle)[1:] if c in want]
    with pytest.raises(rtcosim.Error, match="gearbox"):
        rtcosim.read_result(vehicle, variables=["gearbox.*"])
    # a text column found by a pattern comes as str, as by its name
    text_csv = str(tmp_path / "text.csv")
    with open(text_csv, "w") as f:
        f.write('"time","gear_name","gear"\n0,"first",1\n1,"second",2\n')
    r = rtcosim.read_result(text_csv, variables=["gear*"])
    assert list(r.dtype.names) == ["time", "gear_name", "gear"]
    assert list(r["gear_name"]) == ["first", "second"] and list(r["gear"]) == [1.0, 2.0]


def test_compare_leaves_out_what_exclude_names(cli, vehicle, tmp_path):
    """--exclude (repeatable; names or patterns) leaves variables out of
    those compared, counted; the reference altered in an excluded column
    only still matches, and excluding everything is an error."""
    columns = header(vehicle)[1:]
    altered = str(tmp_path / "altered.csv")
    with open(vehicle, newline="") as f, open(altered, "w", newline="") as g:
        rows = list(csv.reader(f))
        k = rows[0].index("engine.rpm")
        for row in rows[1:]:
            row[k] = str(float(row[k]) + 100)
        csv.writer(g, quoting=csv.QUOTE_MINIMAL, lineterminator="\n").writerows(rows)
    left_out = expected(columns, "body.*", "*rpm*")
    r = subprocess.run([cli, "compare", vehicle, altered], capture_output=True, text=True)
    assert r.returncode == 1 and "engine.rpm " in r.stdout, r.stdout
    r = subprocess.run([cli, "compare", vehicle, altered, "--exclude", "body.*", "--exclude",
                        "*rpm*"], capture_output=True, text=True)
    n = len(columns) - len(left_out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"({len(left_out)} variables left out by --exclude)" in r.stdout, r.stdout
    assert f"MATCHES: {n} of {n} variables within tolerance" in r.stdout, r.stdout
    c = rtcosim.compare_results(vehicle, altered, variables=["engine.*"], exclude="engine.rpm")
    assert c and c.excluded == 1 and sorted(c.variables) == sorted(
        x for x in expected(columns, "engine.*") if x != "engine.rpm")
    r = subprocess.run([cli, "compare", vehicle, vehicle, "--exclude", "*"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and f"{len(columns)} excluded" in r.stderr, r.stderr


def model_variables(path):
    """An FMU's variables in the order of its modelDescription.xml (FMI 3.0:
    every element of ModelVariables), time left out."""
    import xml.etree.ElementTree as ET
    import zipfile
    md = ET.fromstring(zipfile.ZipFile(path).read("modelDescription.xml"))
    return [v.get("name") for v in md.find("ModelVariables")
            if v.get("causality") != "independent"]


def test_simulate_records_what_output_variable_patterns_match(cli, tmp_path):
    ball = fmu("BouncingBall-fmi3.fmu")
    names = model_variables(ball)
    out = str(tmp_path / "ball.csv")
    for args, want in ((["v*"], expected(names, "v*")),
                       (["h", "*"], ["h"] + [n for n in names if n != "h"])):
        cmd = [cli, "simulate", ball, "-o", out]
        for a in args:
            cmd += ["--output-variable", a]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert header(out) == ["time"] + want, args
    r = subprocess.run([cli, "simulate", ball, "--output-variable", "w*", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "output variable 'w*': no variable of model 'BouncingBall' " \
        "matches it" in r.stderr, r.stderr


def test_run_records_what_output_variable_patterns_match(cli, vehicle, tmp_path):
    """A system: patterns over "component.variable", each variable once (an
    explicit name after a pattern that matched it too); in real time a
    pattern's match that the paced thread cannot see is left out, where the
    same variable named is an error."""
    ssd = source("examples", "vehicle", "vehicle.ssd")
    outputs = header(vehicle)[1:]  # the default run's columns: every numeric output
    out = str(tmp_path / "o.csv")
    r = subprocess.run([cli, "run", ssd, "--stop-time", "0.1", "-q", "-o", out,
                        "--output-variable", "engine.*", "--output-variable", "*speed*",
                        "--output-variable", "engine.rpm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = header(out)[1:]
    assert len(got) == len(set(got))
    assert all(fnmatch.fnmatchcase(c, "engine.*") or fnmatch.fnmatchcase(c, "*speed*")
               for c in got), got
    for c in expected(outputs, "engine.*", "*speed*"):
        assert c in got, c
    assert got.index("engine.rpm") < got.index("body.speed")  # (its pattern's place)
    rt = [cli, "run", ssd, "--stop-time", "0.1", "-q", "-o", out, "--real-time",
          "--virtual-clock", "--non-realtime", "transmission"]
    r = subprocess.run(rt + ["--output-variable", "*rpm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = header(out)[1:]
    assert "engine.rpm" in got and "transmission.turbine_rpm" not in got, got
    r = subprocess.run(rt + ["--output-variable", "transmission.turbine_rpm"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "cannot be recorded in a real-time run" in r.stderr, r.stderr


def test_a_column_named_like_a_pattern_is_itself_everywhere(cli, tmp_path):
    """Columns named "y[2]", "y2" and "*" (the sweep's file): read_result,
    convert and compare take a name that is a column as that column alone,
    each column once however often it is selected; a text column comes by
    the C library's fnmatch(3) as a number column does ([^...] negates)."""
    path = str(tmp_path / "tricky.csv")
    with open(path, "w") as f:
        f.write('"time","y[2]","y2","label","*"\n0,1,2,"a",3\n1,4,5,"b",6\n')
    assert rtcosim.read_result(path, variables=["y[2]"]).dtype.names == ("time", "y[2]")
    assert rtcosim.read_result(path, variables=["*"]).dtype.names == ("time", "*")
    assert rtcosim.read_result(path, variables=["[^y]*"]).dtype.names == ("time", "label", "*")
    r = rtcosim.read_result(path, variables=["lab*", "y*"])
    assert r.dtype.names == ("time", "y[2]", "y2", "label") and list(r["label"]) == ["a", "b"]
    with pytest.raises(rtcosim.Error, match="no variables matching 'zz\\*', 'qq'"):
        rtcosim.read_result(path, variables=["zz*", "qq"])
    out = str(tmp_path / "out.csv")
    r = subprocess.run([cli, "convert", path, out, "y[2]", "*"], capture_output=True, text=True)
    assert r.returncode == 0 and header(out) == ["time", "y[2]", "*"], r.stderr
    for names in (["y*", "y2"], ["y[2]", "y*", "y[2]"], ["y2", "y2"]):
        r = subprocess.run([cli, "compare", path, path, *names], capture_output=True, text=True)
        want = len(set(expected(["y[2]", "y2"], *[n for n in names if n not in ("y[2]",)]) +
                       [n for n in names if n == "y[2]"]))
        assert r.returncode == 0 and f"MATCHES: {want} of {want} variable" in r.stdout, (names, r)
    # a text column alone: kept in a CSV; nothing a MAT file would hold
    text = str(tmp_path / "text.csv")
    r = subprocess.run([cli, "convert", path, text, "lab*"], capture_output=True, text=True)
    assert r.returncode == 0 and header(text) == ["time", "label"], r.stderr
    none = str(tmp_path / "none.mat")
    r = subprocess.run([cli, "convert", path, none, "lab*"], capture_output=True, text=True)
    assert r.returncode == 1 and "no numeric variable to convert (1 column of text" in r.stderr
    assert not os.path.exists(none)


def test_a_header_that_is_not_utf8_reads_back(tmp_path):
    """A CSV whose header and cells are Latin-1 (a Windows tool's): the names
    come back with their bytes as surrogate escapes (os.fsdecode's way), a
    text column's too, and such a name or its bytes select the column (it
    raised UnicodeDecodeError and UnicodeEncodeError)."""
    path = str(tmp_path / "latin1.csv")
    with open(path, "wb") as f:
        f.write(b'"time","caf\xe9","lab\xe9l"\n0,1,"a\xff"\n1,3,"b"\n')
    r = rtcosim.read_result(path)
    assert r.dtype.names == ("time", "caf\udce9", "lab\udce9l")
    assert list(r["caf\udce9"]) == [1.0, 3.0] and list(r["lab\udce9l"]) == ["a\udcff", "b"]
    for name in (b"caf\xe9", "caf\udce9", "caf*"):
        assert rtcosim.read_result(path, variables=[name]).dtype.names == ("time", "caf\udce9")


def test_plot_of_a_latin1_header_draws_its_legend(cli, tmp_path):
    """PLplot aborts a text at a byte that starts no UTF-8 character
    ("*** PLPLOT ERROR, ABORTING OPERATION ***", the legend left out): the
    Latin-1 name is drawn with U+FFFD for its byte instead."""
    path = str(tmp_path / "latin1.csv")
    with open(path, "wb") as f:
        f.write(b'"time","caf\xe9","x"\n0,1,2\n1,3,4\n')
    svg = str(tmp_path / "l.svg")
    r = subprocess.run([cli.encode(), b"plot", path.encode(), b"caf\xe9", b"x", b"-o",
                        svg.encode()], capture_output=True)
    assert r.returncode == 0 and b"PLPLOT" not in r.stderr, r
    with open(svg, encoding="utf-8") as f:
        text = html.unescape(f.read())
    assert "caf\ufffd" in text and "x" in text
