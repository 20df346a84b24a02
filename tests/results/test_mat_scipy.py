"""MAT results read back with scipy.io.loadmat: the Dymola result layout
(Aclass, name, description with [unit], dataInfo, data_1, data_2) and values
identical to the CSV of the same run, checked against the analytic free fall of
BouncingBall (h = h0 + g t^2 / 2 before the first bounce) and its model's units.
Then `can decode -o x.mat` of a two-frame candump log against examples/ecus/vehicle.dbc
(EngineSpeed: bytes 0-1 little endian x 0.25 rpm; EngineTorque: bytes 2-3 x 0.1 - 500 N.m).
Then `run` of a system, offline and in (virtual-clock) real time: MAT equal to CSV,
with the components' units and descriptions. Then `info` of a MAT file scipy wrote.
Then a run killed with SIGKILL: its .mat file (written as the run goes) opens in
scipy with the time points written so far, equal to the CSV of a run that stops there.
Usage: test_mat_scipy.py RTCOSIM BOUNCINGBALL_FMU VEHICLE_DBC SSD. Exit 77 (skip) without scipy."""
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import scipy.io
except ImportError:
    print("skipped: scipy is not installed (Debian: python3-scipy)")
    sys.exit(77)

rtcosim, fmu, dbc, ssd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]


def strings(matrix):
    """binTrans: one string per column of a char matrix."""
    return ["".join(matrix[:, j]).rstrip() for j in range(matrix.shape[1])]


def run(*args):
    return subprocess.run([rtcosim, "simulate", fmu, "--stop-time", "0.3", "--output-interval", "0.1",
                           "--output-variable", "h", "--output-variable", "v", "--output-variable", "g",
                           *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    mat_path, csv_path = os.path.join(tmp, "ball.mat"), os.path.join(tmp, "ball.csv")
    r = run("-o", mat_path)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(mat_path + ".csv.part")
    r = run("--output-file", csv_path)
    assert r.returncode == 0, r.stderr
    assert scipy.io.matlab.matfile_version(mat_path)[0] == 0  # MAT v4, as Dymola writes it
    m = scipy.io.loadmat(mat_path, chars_as_strings=False)
    assert strings(m["Aclass"].T) == ["Atrajectory", "1.1", "", "binTrans"], m["Aclass"]
    names = strings(m["name"])
    assert names == ["time", "h", "v", "g"], names
    desc = strings(m["description"])
    assert desc[0] == "Time [s]", desc
    assert desc[1].endswith("[m]") and desc[2].endswith("[m/s]"), desc
    assert desc[3] == "Gravity acceleration (< 0) [m/s2]", desc
    info = m["dataInfo"]
    assert info.shape == (4, 4) and info.dtype == np.int32
    # time: abscissa of all matrices; h, v: rows 2, 3 of data_2 (interpolated,
    # undefined outside); g (fixed parameter): row 2 of data_1, defined outside
    assert info[:, 0].tolist() == [0, 1, 0, -1], info
    assert info[:, 1].tolist() == [2, 2, 0, -1], info
    assert info[:, 2].tolist() == [2, 3, 0, -1], info
    assert info[:, 3].tolist() == [1, 2, 0, 0], info
    d1, d2 = m["data_1"], m["data_2"]
    assert d1.tolist() == [[0.0, 0.3], [-9.81, -9.81]], d1
    assert d2.shape == (3, 4), d2.shape
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "h", "v", "g"], rows[0]
    values = np.array([[float(x) for x in row] for row in rows[1:]])
    # identical to the CSV, value by value (no tolerance)
    assert np.array_equal(d2, values[:, :3].T), (d2, values)
    # and the physics: free fall from h0 = 1 m with g = -9.81 m/s2
    t = np.array([0.0, 0.1, 0.2, 0.3])
    assert np.array_equal(d2[0], t)
    assert np.allclose(d2[1], 1 - 9.81 * t * t / 2, rtol=0, atol=1e-12), d2[1]
    assert np.allclose(d2[2], -9.81 * t, rtol=0, atol=1e-12), d2[2]

    # an extension that is neither .csv nor .mat is refused and nothing written
    bad = os.path.join(tmp, "ball.xlsx")
    r = run("-o", bad)
    assert r.returncode == 1 and r.stderr == f"rtcosim: {bad}: unknown results format '.xlsx' (use .csv, .mat or .mf4)\n", r.stderr
    assert not os.path.exists(bad)

    # --csv-units: the units of the model description under the header
    r = run("--output-file", csv_path, "--csv-units")
    assert r.returncode == 0, r.stderr
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[1] == ["s", "m", "m/s", "m/s2"], rows[1]
    assert float(rows[2][1]) == 1.0

    # can decode -o x.mat: A0 0F -> 0x0FA0 * 0.25 = 1000 rpm, 70 17 -> 0x1770 * 0.25 = 1500 rpm;
    # torque bytes 2-3 0x1388 = 5000 -> 0 N.m, then 0 -> -500 N.m
    log = os.path.join(tmp, "engine.log")
    with open(log, "w") as f:
        f.write("(1.000000) can0 0C0#A00F881300000000\n(1.500000) can0 0C0#7017000000000000\n")
    can_mat = os.path.join(tmp, "engine.mat")
    r = subprocess.run([rtcosim, "can", "decode", log, "--dbc", dbc, "-o", can_mat],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(can_mat + ".csv.part")
    m = scipy.io.loadmat(can_mat, chars_as_strings=False)
    names = strings(m["name"])
    d2 = m["data_2"]
    assert d2[0].tolist() == [1.0, 1.5], d2
    speed = [n for n in names if n.endswith("EngineSpeed")]
    torque = [n for n in names if n.endswith("EngineTorque")]
    assert len(speed) == 1 and len(torque) == 1, names
    info = m["dataInfo"]
    row = lambda name: info[1, names.index(name)] - 1
    assert d2[row(speed[0])].tolist() == [1000.0, 1500.0], d2
    assert d2[row(torque[0])].tolist() == [0.0, -500.0], d2

    # run, offline and real time (virtual clock): the MAT holds the CSV's values
    for extra in ([], ["--real-time", "--virtual-clock", "--no-calibrate"]):
        files = {}
        for ext in ("csv", "mat"):
            files[ext] = os.path.join(tmp, "sys." + ext)
            r = subprocess.run([rtcosim, "run", ssd, "--stop-time", "0.02", "-q", "-o", files[ext], *extra],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
        with open(files["csv"], newline="") as f:
            rows = list(csv.reader(f))
        values = np.array([[float(x) for x in row] for row in rows[1:]]).T
        m = scipy.io.loadmat(files["mat"], chars_as_strings=False)
        assert strings(m["name"]) == rows[0], (strings(m["name"]), rows[0])
        assert np.array_equal(m["data_2"], values), extra
        # units and descriptions as simulate writes them: those the native
        # oscillator.mass1 model declares (examples/oscillator/models.c)
        assert strings(m["description"]) == ["Time [s]", "position of mass 1 [m]",
                                             "velocity of mass 1 [m/s]", "position of mass 1 [m]",
                                             "velocity of mass 1 [m/s]"], (strings(m["description"]), extra)
        r = subprocess.run([rtcosim, "run", ssd, "--stop-time", "0.02", "-q", "-o", files["csv"],
                            "--csv-units", *extra], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with open(files["csv"], newline="") as f:
            assert list(csv.reader(f))[1] == ["s", "m", "m/s", "m", "m/s"], extra

    # `info` of a MAT file another tool wrote: scipy's MAT v4 writer, the
    # Dymola layout stored the other way round (binNormal: a column per
    # variable), a parameter in data_1 (3.0), a unit in a description's
    # brackets; rows, time span, step and each column's extremes as numpy
    # computes them.
    def char_matrix(texts):
        width = max(len(t) for t in texts)
        return np.array([t.ljust(width) for t in texts])
    t = np.array([0.0, 0.5, 1.0, 1.5])
    speed = np.array([1.5, -2.0, 4.25, 0.0])
    other = os.path.join(tmp, "other.mat")
    scipy.io.savemat(other, {
        "Aclass": char_matrix(["Atrajectory", "1.1", "", "binNormal"]),
        "name": char_matrix(["time", "speed", "gain"]),
        "description": char_matrix(["Time [s]", "Vehicle speed [m/s]", "Gain"]),
        "dataInfo": np.array([[0, 1, 0, -1], [2, 2, 0, -1], [1, 2, 0, 0]], dtype=np.int32),
        "data_1": np.array([[0.0, 3.0], [1.5, 3.0]]),
        "data_2": np.column_stack([t, speed])}, format="4")
    r = subprocess.run([rtcosim, "info", other], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split() == ["rows", "4,", "time", "0", "..", "1.5,", "step", "0.5"], lines
    cols = {l.split()[0]: l.split()[1:] for l in lines[5:]}
    assert cols["speed"] == ["m/s", "%g" % speed.min(), "%g" % speed.max(), "0"], cols
    assert cols["gain"] == ["-", "3", "3", "0"], cols

    # a run killed with SIGKILL (no handler runs): the file holds every time
    # point up to the last write, data_1 the times of the first and last
    killed = os.path.join(tmp, "killed.mat")
    p = subprocess.Popen([rtcosim, "simulate", fmu, "--stop-time", "1e7", "--output-interval", "0.001",
                          "--output-variable", "h", "--output-variable", "v", "--output-variable", "g",
                          "-q", "-o", killed], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while (not os.path.exists(killed) or os.path.getsize(killed) < 2_000_000) and time.monotonic() < deadline:
        time.sleep(0.02)
    # stopped first: the count follows each write of time points by a few
    # microseconds, and a file caught in between has time points past its
    # count (src/results/README.md); then killed
    for attempt in range(50):
        p.send_signal(signal.SIGSTOP)
        time.sleep(0.01)
        try:
            m = scipy.io.loadmat(killed, chars_as_strings=False)
            break
        except ValueError:
            p.send_signal(signal.SIGCONT)
            time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    p.stderr.close()
    m = scipy.io.loadmat(killed, chars_as_strings=False)
    d1, d2 = m["data_1"], m["data_2"]
    n = d2.shape[1]
    assert d2.shape[0] == 3 and n * 24 >= 1_900_000, d2.shape
    assert np.array_equal(d2[0], np.arange(n) / 1000.0)
    assert d1.tolist() == [[0.0, d2[0, -1]], [-9.81, -9.81]], d1
    stop = os.path.join(tmp, "stop.csv")
    r = subprocess.run([rtcosim, "simulate", fmu, "--stop-time", repr(d2[0, -1]), "--output-interval",
                        "0.001", "--output-variable", "h", "--output-variable", "v", "-o", stop],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(stop, newline="") as f:
        values = np.array([[float(x) for x in row] for row in list(csv.reader(f))[1:]]).T
    assert np.array_equal(d2, values), (d2.shape, values.shape)
print("ok")
