"""FMI 3.0 arrays in fmusim's CSV layout: one column per array variable, its
elements in one cell separated by spaces, row-major (fmusim's recorder writes
outputs so, its static input reads inputs so). Truth: what fmusim 0.0.39 wrote
and read for the project's StateSpace FMU (co-simulation, --stop-time 1
--output-interval 0.1): data/fmusim_statespace_u.csv, a ramp of u as fmusim's
input file, and data/fmusim_statespace_y.csv, fmusim's results of that run,
whose cells Python splits and reads itself.
- `simulate --input-file` takes fmusim's input: y is fmusim's to the last of
  the 16 digits fmusim prints, and byte for byte the run of the same ramp
  given a column per element (u[1], u[2], u[3]); `--input-column u=U` takes
  the array from a column of another name.
- every results reader (line at a time, and the whole file with
  RTCOSIM_CSV_WHOLE=1) reads fmusim's y as y[1], y[2], y[3]: `convert` gives
  fmusim's numbers to the bit, `info` lists them, `compare` holds our run to
  fmusim's file; a units row's unit applies to every element; a quoted cell
  of numbers stays text (a String value, as both tools quote them).
- bad input: a cell with another count than the array's elements (input) or
  than the first row's (results), an element that is no number: one line
  naming the file, line and column, exit 1, nothing written.
Usage: test_fmusim_arrays.py RTCOSIM STATESPACE_FMU DATA_DIR"""
import csv
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cli_run import read, runner  # noqa: E402

rtcosim, fmu, data = sys.argv[1:4]
FMUSIM_U = os.path.join(data, "fmusim_statespace_u.csv")
FMUSIM_Y = os.path.join(data, "fmusim_statespace_y.csv")
RUN = ["--stop-time", "1", "--output-interval", "0.1"]


run = runner(rtcosim)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def fmusim_table():
    """fmusim's results: time and y's three elements per row, as floats."""
    table = rows(FMUSIM_Y)
    assert table[0] == ["time", "y"], table[0]
    out = []
    for row in table[1:]:
        y = [float(v) for v in row[1].split(" ")]
        assert len(y) == 3, row
        out.append((float(row[0]), y))
    assert len(out) == 11
    return out


def one_line_error(r, *parts):
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = r.stderr.strip().split("\n")
    assert len(lines) == 1, r.stderr
    for part in parts:
        assert part in lines[0], (part, lines[0])


reference = fmusim_table()
with tempfile.TemporaryDirectory() as tmp:
    def at(name):
        return os.path.join(tmp, name)

    def write(name, text):
        with open(at(name), "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return at(name)

    # -- inputs: fmusim's file, per element, under another name --
    run("simulate", fmu, *RUN, "--input-file", FMUSIM_U, "--output-file", at("ours.csv"))
    ours = rows(at("ours.csv"))
    assert ours[0] == ["time", "y[1]", "y[2]", "y[3]"], ours[0]
    assert len(ours) == 12
    for (t, y), row in zip(reference, ours[1:]):
        assert abs(float(row[0]) - t) < 1e-12, (row, t)
        for k in range(3):
            got = float(row[k + 1])
            # fmusim prints %.16g: within half a unit of its 16th digit
            assert abs(got - y[k]) <= 5e-16 * abs(y[k]), (t, k, got, y[k])
    assert float(ours[1][3]) == 2.0  # y3 = x1 + x2 + u1 + 2 u2 = 1 + 1 at t = 0
    elements = write("u_elements.csv", "time,u[1],u[2],u[3]\n0,0,0,0\n1,2,0.5,-3\n")
    run("simulate", fmu, *RUN, "--input-file", elements, "--output-file", at("elements.csv"))
    assert read(at("elements.csv")) == read(at("ours.csv"))
    mapped = write("u_mapped.csv", '"time","other","U"\n0,7,0 0 0\n1,8,2 0.5 -3\n')
    run("simulate", fmu, *RUN, "--input-file", mapped, "--input-column", "u=U",
        "--output-file", at("mapped.csv"))
    assert read(at("mapped.csv")) == read(at("ours.csv"))

    # -- results: fmusim's file through every reader --
    for whole in ("0", "1"):
        env = {"RTCOSIM_CSV_WHOLE": whole}
        run("convert", FMUSIM_Y, at(f"y_{whole}.csv"), env=env)
        back = rows(at(f"y_{whole}.csv"))
        assert back[0] == ["time", "y[1]", "y[2]", "y[3]"], back[0]
        for (t, y), row in zip(reference, back[1:]):
            assert [float(v) for v in row[1:]] == y, (whole, row, y)  # to the bit
        info = run("info", FMUSIM_Y, env=env).stdout
        assert "3 numeric" in info and all(f"y[{k}]" in info for k in (1, 2, 3)), info
        cmp = run("compare", FMUSIM_Y, at("ours.csv"), "--rtol", "1e-15", "--range-tol", "0",
                  env=env)
        assert "MATCHES: 3 of 3 variables" in cmp.stdout, cmp.stdout
        run("convert", FMUSIM_Y, at(f"y_{whole}.mf4"), env=env)
        run("convert", at(f"y_{whole}.mf4"), at(f"y_{whole}_mf4.csv"))
        assert read(at(f"y_{whole}_mf4.csv")) == read(at(f"y_{whole}.csv"))

        units = write("units.csv", '"time","y","label"\n"s","m",""\n0,1 2,"1 2"\n1,3 4,"x"\n')
        run("convert", units, at(f"units_{whole}.csv"), "--csv-units", env=env)
        got = rows(at(f"units_{whole}.csv"))
        assert got[0][:3] == ["time", "y[1]", "y[2]"] and got[1][:3] == ["s", "m", "m"], got
        assert [r[1:3] for r in got[2:]] == [["1", "2"], ["3", "4"]], got
        if whole == "0":  # (the whole reader's convert leaves text columns out)
            assert got[0][3] == "label" and [r[3] for r in got[2:]] == ["1 2", "x"], got

        bad = write("bad_count.csv", '"time","y"\n0,1 2 3\n1,4 5\n')
        one_line_error(run("info", bad, env=env, ok=False),
                       "bad_count.csv:3: column 2 ('y'): 2 values where the first row has 3")
        assert not os.path.exists(at("bad_out.csv"))
        one_line_error(run("convert", bad, at("bad_out.csv"), env=env, ok=False),
                       "bad_count.csv:3: column 2 ('y')")
        assert not os.path.exists(at("bad_out.csv"))
        # an element that is no number: a word in that element's column, as in any other
        word = write("word.csv", '"time","y"\n0,1 2 3\n1,4 x 6\n')
        info = run("info", word, env=env).stdout
        assert "y[2]" in info and "3 numeric" in info, info

    # -- bad inputs: refused before the results file is opened (an earlier
    # run's results under that name stay as they were) --
    write("no.csv", "earlier results\n")
    one_line_error(run("simulate", fmu, "--input-file", write("u2.csv", '"time","u"\n0,1 2\n'),
                       "--output-file", at("no.csv"), ok=False),
                   "u2.csv:2: column 2 ('u'): 2 values, but the array has 3 elements")
    one_line_error(run("simulate", fmu, "--input-file",
                       write("ux.csv", '"time","u"\n0,1 2 3\n1,1 x 3\n'),
                       "--output-file", at("no.csv"), ok=False),
                   "ux.csv:3: column 2 ('u'): element 2 ('u[2]'), 'x', is not a finite number")
    one_line_error(run("simulate", fmu, "--input-file", write("u0.csv", '"time","u"\n0,\n'),
                       "--output-file", at("no.csv"), ok=False),
                   "u0.csv:2: column 2 ('u'): 0 values, but the array has 3 elements")
    assert read(at("no.csv")) == b"earlier results\n"
    one_line_error(run("simulate", fmu, "--input-file", write("nv.csv", "time,nope\n0,1\n"),
                       "--output-file", at("no.csv"), ok=False),
                   "column 'nope': model 'StateSpace' has no such variable")
    assert read(at("no.csv")) == b"earlier results\n"
print("ok")
