"""A MAT result file as a table (as OMSimulator's table component reads result
files): written here by scipy.io.savemat, not by rtcosim, in the Dymola /
OpenModelica layout OpenModelica writes (MAT v4, binTrans: Aclass, name,
description, dataInfo, data_1, data_2; a negated alias; a constant in data_1),
then given to `rtcosim run` and `rtcosim simulate` as the input file of the
Feedthrough FMU (FMI 3.0).
Expected: the outputs equal the same inputs given as CSV, and the values worked
out by hand (continuous linear, the others held; one macro step later under
Jacobi, as fmusim records them). Then a MAT file that is no result file, and a
missing one, each refused in one line naming it.
Usage: test_mat_table_scipy.py RTCOSIM FEEDTHROUGH_FMI3_FMU. Exit 77 without scipy."""
import csv
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.io
except ImportError:
    print("skipped: scipy is not installed (Debian: python3-scipy)")
    sys.exit(77)

rtcosim, fmu = sys.argv[1], sys.argv[2]
INPUTS = ["Float64_continuous_input", "Float64_discrete_input", "Int32_input", "Boolean_input"]
OUTPUTS = [n.replace("input", "output") for n in INPUTS]


def chars(strings, width=None):
    """binTrans: one string per column of a char matrix, blank-padded (scipy
    writes an array of equal strings as a char matrix, one string a row)."""
    width = width or max(len(s) for s in strings)
    padded = [s.ljust(width) for s in strings]
    return np.array(["".join(s[k] for s in padded) for k in range(width)])


def write_result(path):
    time = [0.0, 0.5, 0.5, 1.0]  # a repeated time: the later point from then on
    c = [0.0, 1.0, 1.0, 2.0]
    d = [0.0, 0.0, 1.0, 2.0]
    b = [0.0, 0.0, 1.0, 0.0]
    names = ["time"] + INPUTS
    # data_2 rows: time, c, -d (Float64_discrete_input is its negated alias), b;
    # Int32_input is data_1's constant 3 (a parameter column)
    data_2 = np.array([time, c, [-x for x in d], b])
    data_1 = np.array([[0.0, 1.0], [3.0, 3.0]])
    info = np.array([[0, 1, 0, -1],    # time: abscissa
                     [2, 2, 0, -1],    # c: data_2 row 2
                     [2, -3, 0, -1],   # d: minus data_2 row 3
                     [1, 2, 0, 0],     # Int32_input: data_1 row 2
                     [2, 4, 0, -1]],   # b: data_2 row 4
                    dtype=np.int32).T
    scipy.io.savemat(path, {
        "Aclass": np.array(["Atrajectory", "1.1".ljust(11), " " * 11, "binTrans".ljust(11)]),
        "name": chars(names),
        "description": chars(["Time in [s]"] + [""] * (len(names) - 1), 12),
        "dataInfo": info,
        "data_1": data_1,
        "data_2": data_2,
    }, format="4")


def run(tmp, input_file, out):
    args = [rtcosim, "run", fmu, "--input-file", input_file, "--stop-time", "1",
            "--step-size", "0.125", "-o", out]
    for o in OUTPUTS:
        args += ["--output-variable", o]
    return subprocess.run(args, capture_output=True, text=True, cwd=tmp)


def rows(path):
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    return r[0], [[float(x) for x in row] for row in r[1:]]


def by_hand(t):
    """The table at t: c linear, d, i, b the last point at or before t."""
    return [2 * t if t <= 1 else 2.0,
            0.0 if t < 0.5 else 1.0 if t < 1 else 2.0,
            3.0,
            0.0 if t < 0.5 else 1.0 if t < 1 else 0.0]


with tempfile.TemporaryDirectory() as tmp:
    mat = os.path.join(tmp, "in.mat")
    write_result(mat)
    assert scipy.io.matlab.matfile_version(mat)[0] == 0  # MAT v4
    table_csv = os.path.join(tmp, "in.csv")
    with open(table_csv, "w") as f:
        f.write("time," + ",".join(INPUTS) + "\n0,0,0,3,0\n0.5,1,0,3,0\n0.5,1,1,3,1\n1,2,2,3,0\n")
    from_mat, from_csv = os.path.join(tmp, "mat_out.csv"), os.path.join(tmp, "csv_out.csv")
    r = run(tmp, mat, from_mat)
    assert r.returncode == 0, r.stderr
    r = run(tmp, table_csv, from_csv)
    assert r.returncode == 0, r.stderr
    head_m, got_m = rows(from_mat)
    head_c, got_c = rows(from_csv)
    assert head_m == head_c == ["time"] + ["Feedthrough." + o for o in OUTPUTS], head_m
    assert got_m == got_c, (got_m, got_c)
    assert len(got_m) == 9
    for row in got_m:
        t = row[0]
        want = by_hand(t - 0.125) if t >= 0.125 else by_hand(0.0)
        assert row[1:] == want, (t, row, want)

    # `simulate` (fmusim's importer loop) takes it as its input file too
    sims = []
    for input_file in (mat, table_csv):
        out = os.path.join(tmp, "sim_%d.csv" % len(sims))
        args = [rtcosim, "simulate", fmu, "--input-file", input_file, "--stop-time", "1",
                "--output-interval", "0.125", "-o", out]
        for o in OUTPUTS:
            args += ["--output-variable", o]
        r = subprocess.run(args, capture_output=True, text=True, cwd=tmp)
        assert r.returncode == 0, r.stderr
        sims.append(rows(out))
    assert sims[0] == sims[1], sims
    # simulate takes each row right after the step, before the inputs of its
    # time (fmusim's order): the rows of `run`.
    assert sims[0][1] == got_m, (sims[0][1], got_m)

    # a MAT file that is no result file; a missing one
    plain = os.path.join(tmp, "plain.mat")
    scipy.io.savemat(plain, {"x": np.array([[1.0, 2.0]])}, format="4")
    for path, message in [(plain, "plain.mat: not a Modelica/Dymola result file (needs Aclass, "
                                  "name, dataInfo and data_2)"),
                          (os.path.join(tmp, "absent.mat"), "absent.mat: cannot open: No such file")]:
        r = run(tmp, path, os.path.join(tmp, "x.csv"))
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
print("ok")
