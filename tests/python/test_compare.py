"""`rtcosim compare REFERENCE ACTUAL`: exit 0 when the runs match, 1 when one
differs, 2 when they cannot be compared (diff's convention). With
--fmi-cross-check, the outliers the FMI cross-check's validation counts,
computed here from its published rule with numpy and scipy's minimum and
maximum filters. Truth: the same
run written by rtcosim as CSV and MF4 and by scipy.io.savemat as a MAT file
another tool made (values from Python's csv module), an analytic change (the
ball's restitution e set from 0.7 to 0.71: the first bounce at
t = sqrt(2 h0 / g) is the same, the rebound differs), the report's columns,
the plot's PNG signature, and one-line errors naming the file or option."""
import csv
import os
import subprocess

import numpy as np
import pytest
import scipy.io as scipy_io
from scipy.ndimage import maximum_filter1d, minimum_filter1d

from conftest import fmu


def compare(cli, *args):
    return subprocess.run([cli, "compare", *args], capture_output=True, text=True)


def simulate(cli, out, *extra):
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "--stop-time", "3",
                    "--output-interval", "0.01", "-o", out, *extra], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def test_the_same_run_in_three_formats_matches(cli, tmpdir_private):
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    mf4 = simulate(cli, os.path.join(tmpdir_private, "act.mf4"))
    # the reference as another tool writes it: scipy's MAT v4, Dymola layout,
    # binNormal (a column per variable), values as Python reads our CSV
    with open(ref, newline="") as f:
        rows = list(csv.reader(f))
    values = np.array([[float(x) for x in row] for row in rows[1:]])
    names = rows[0]
    width = max(len(n) for n in names)
    mat = os.path.join(tmpdir_private, "scipy.mat")
    scipy_io.savemat(mat, {
        "Aclass": np.array([s.ljust(11) for s in ["Atrajectory", "1.1", "", "binNormal"]]),
        "name": np.array([n.ljust(width) for n in names]),
        "description": np.array(["".ljust(1) for _ in names]),
        "dataInfo": np.array([[0, 1, 0, -1]] + [[2, k + 1, 0, -1] for k in range(1, len(names))],
                             dtype=np.int32),
        "data_1": np.array([[values[0, 0]], [values[-1, 0]]]),  # binNormal: 2 x n1
        "data_2": values}, format="4")
    for act in (mf4, mat):
        r = compare(cli, ref, act, "--rtol", "0", "--range-tol", "0")
        assert r.returncode == 0, (act, r.stdout, r.stderr)
        assert r.stdout.splitlines()[-1] == "MATCHES: 2 of 2 variables within tolerance", r.stdout
        lines = {l.split()[0]: l.split() for l in r.stdout.splitlines()[4:-1]}
        assert lines["h"][1:3] == ["ok", "0"] and lines["v"][1:3] == ["ok", "0"], r.stdout
    # the other way round too, and -q: the summary alone
    r = compare(cli, mat, ref, "-q")
    assert r.returncode == 0 and r.stdout == "MATCHES: 2 of 2 variables within tolerance\n", r


def test_a_changed_parameter_differs_after_the_first_bounce(cli, tmpdir_private):
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    act = simulate(cli, os.path.join(tmpdir_private, "e071.csv"), "--start-value", "e", "0.71")
    report, png = (os.path.join(tmpdir_private, n) for n in ("report.csv", "diff.png"))
    r = compare(cli, ref, act, "--report", report, "--plot", png)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stdout.splitlines()[-1] == "DIFFERS: 0 of 2 variables within tolerance", r.stdout
    # free fall from h0 = 1 m: the first impact at sqrt(2 / 9.81) = 0.4515 s
    # (on the 10 ms grid: the step ending at 0.46 s), the same in both runs
    t_impact = np.sqrt(2 / 9.81)
    with open(report, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["variable"] for row in rows] == ["h", "v"]
    for row in rows:
        assert row["result"] == "differs"
        first = float(row["first_outside_s"])
        assert t_impact < first <= t_impact + 0.01 + 1e-9, row
        assert int(row["outside"]) > 0 and int(row["checked"]) == 2 * 301
    # v after the impact: -e v_impact, |v_impact| = sqrt(2 g h0) = 4.43 m/s:
    # the rebounds differ by 0.01 * 4.43 m/s at least
    assert float(rows[1]["max_abs_diff"]) >= 0.01 * np.sqrt(2 * 9.81) - 1e-9
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    # only the window before the impact: they match
    r = compare(cli, ref, act, "--to", "0.45", "-q")
    assert r.returncode == 0, r.stdout


def test_trouble_is_exit_2_with_one_line(cli, tmpdir_private):
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    absent = os.path.join(tmpdir_private, "absent.csv")
    cases = [
        ([ref, absent], absent + ": cannot open"),
        ([ref, ref, "hh"], ref + ": no variable 'hh'"),
        ([ref, ref, "--rtol", "-1"], "compare: --rtol needs a number >= 0, e.g. --rtol 1e-6 (got '-1')"),
        ([ref, ref, "--from", "2", "--to", "1"], "compare: the window ends (1 s) before it starts (2 s)"),
        ([ref], "compare: no ACTUAL file given"),
        ([ref, ref, "--report", ref], "--report"),
    ]
    for args, text in cases:
        r = compare(cli, *args)
        assert r.returncode == 2, (args, r.returncode, r.stderr)
        assert text in r.stderr.splitlines()[-1], (args, r.stderr)
    r = compare(cli, ref, ref, "--time-tol")
    assert r.returncode == 2 and "--time-tol needs a number" in r.stderr, r.stderr
    r = compare(cli, ref, ref, "--rtoll", "1")
    assert r.returncode == 2 and "did you mean '--rtol'" in r.stderr, r.stderr


def test_an_actual_that_stops_early_differs(cli, tmpdir_private):
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    short = os.path.join(tmpdir_private, "short.csv")
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "--stop-time", "2",
                    "--output-interval", "0.01", "-o", short], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = compare(cli, ref, short)
    assert r.returncode == 1, r.stdout
    assert f"{short} covers 0 .. 2 s, not the compared 0 .. 3 s" in r.stdout, r.stdout
    assert r.stdout.splitlines()[-1] == ("DIFFERS: 2 of 2 variables within tolerance; "
                                         "the time span falls short"), r.stdout


def test_compare_results_in_python(cli, tmpdir_private):
    import rtcosim
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    act = simulate(cli, os.path.join(tmpdir_private, "act.mat"))
    changed = simulate(cli, os.path.join(tmpdir_private, "e.mf4"), "--start-value", "e", "0.71")
    c = rtcosim.compare_results(ref, act, rtol=0, range_tol=0)
    assert c and c.matches and set(c.variables) == {"h", "v"}
    assert c.variables["h"]["max_abs_diff"] == 0 and c.variables["h"]["first_outside_time"] is None
    assert c.reference_span == (0.0, 3.0) and c.actual_rows == 301
    c = rtcosim.compare_results(ref, changed, variables="v")
    assert not c and list(c.variables) == ["v"]
    v = c.variables["v"]
    assert not v["matches"] and np.sqrt(2 / 9.81) < v["first_outside_time"] <= np.sqrt(2 / 9.81) + 0.01 + 1e-9
    assert "differs" in repr(c) and "v" in repr(c)
    assert rtcosim.compare_results(ref, changed, stop=0.45)  # before the first impact
    with pytest.raises(rtcosim.Error, match="no variable 'hh'"):
        rtcosim.compare_results(ref, act, variables=["hh"])
    with pytest.raises(rtcosim.Error, match="tolerances must be finite and not negative"):
        rtcosim.compare_results(ref, act, atol=-1)


def cross_check_outliers(t, y, t_ref, y_ref, t0, t1):
    """The FMI cross-check's rule (FMPy's validate_signal, defaults): the
    reference, its first sample of each time, interpolated at 1000 points
    from t0 to t1; a band of the minimum and maximum of 21 neighbouring
    points widened by a tenth of its range (of its value when constant, 0.5
    at 0); the samples of y within [t0, t1] outside it."""
    tb = np.linspace(t0, t1, 1000)
    first = np.concatenate(([True], np.diff(t_ref) > 0))
    yb = np.interp(tb, t_ref[first], y_ref[first])
    lo, hi = yb.min(), yb.max()
    w = (hi - lo) * 0.1 if hi > lo else (0.5 if lo == 0 else abs(lo) * 0.1)
    below = y < np.interp(t, tb, minimum_filter1d(yb, 21) - w)
    above = y > np.interp(t, tb, maximum_filter1d(yb, 21) + w)
    return int(((below | above) & (t >= t0) & (t <= t1)).sum())


def test_fmi_cross_check_counts_the_outliers_of_its_band(cli, tmpdir_private):
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    with open(ref, newline="") as f:
        rows = np.array([[float(x) for x in row] for row in list(csv.reader(f))[1:]])
    verdicts = []
    for e in ("0.71", "0.75", "0.8", "0.9"):
        act = simulate(cli, os.path.join(tmpdir_private, f"e{e}.csv"), "--start-value", "e", e)
        with open(act, newline="") as f:
            arows = np.array([[float(x) for x in row] for row in list(csv.reader(f))[1:]])
        report = os.path.join(tmpdir_private, f"e{e}.report.csv")
        r = compare(cli, ref, act, "--fmi-cross-check", "--report", report)
        assert r.returncode in (0, 1), r.stderr
        with open(report, newline="") as f:
            got = {row["variable"]: row for row in csv.DictReader(f)}
        for k, name in ((1, "h"), (2, "v")):
            want = cross_check_outliers(arows[:, 0], arows[:, k], rows[:, 0], rows[:, k], 0.0, 3.0)
            assert int(got[name]["outside"]) == want, (e, name, got[name], want)
            assert int(got[name]["checked"]) == len(arows)
            assert (got[name]["result"] == "differs") == (want / len(arows) > 0.1), (e, name)
        verdicts.append(r.returncode)
    assert verdicts[0] == 0 and verdicts[-1] == 1, verdicts  # 0.71 within the band, 0.9 not
    r = compare(cli, ref, ref, "--fmi-cross-check", "--time-tol", "0.1")
    assert r.returncode == 2 and "--time-tol does not apply with --fmi-cross-check" in r.stderr


def test_a_multi_rate_measurements_channels_compare_on_their_own_samples(cli, tmpdir_private):
    """An MDF 4 measurement of two rates, x every 0.1 s and y at 0.35 and 0.7 s:
    on the union of their times x is held (0.3 at 0.35 s), but compare takes
    x's own samples, so x = t matches a CSV of x = t exactly."""
    from test_convert import groups_mf4
    mf4, ref = os.path.join(tmpdir_private, "rig.mf4"), os.path.join(tmpdir_private, "x.csv")
    t = np.arange(11) / 10
    groups_mf4(mf4, [("x", t, t), ("y", np.array([0.35, 0.7]), np.array([1.0, 2.0]))])
    with open(ref, "w") as f:
        f.write('"time","x"\n' + "".join(f"{v!r},{v!r}\n" for v in t))
    r = compare(cli, ref, mf4, "--rtol", "0", "--range-tol", "0")
    assert r.returncode == 0, r.stdout
    line = [l for l in r.stdout.splitlines() if l.startswith("x ")][0].split()
    assert line[1:3] == ["ok", "0"], r.stdout
    assert "(1 variable of" in r.stdout  # y: not in the reference, not compared


def test_junit_report_as_ci_servers_read_it(cli, tmpdir_private):
    """--junit: <testsuites> around one <testsuite> (tests, failures, errors,
    skipped), a <testcase classname name> per variable and one for the time
    span, a <failure message type> where it differs (the JUnit XML that
    Jenkins, GitLab and GitHub reporters read); parsed with ElementTree."""
    import xml.etree.ElementTree as ET
    ref = simulate(cli, os.path.join(tmpdir_private, "ref.csv"))
    act = simulate(cli, os.path.join(tmpdir_private, "e.csv"), "--start-value", "e", "0.71")
    short = os.path.join(tmpdir_private, "short & <odd>.csv")  # (escaped in the XML)
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "--stop-time", "2",
                    "--output-interval", "0.01", "-o", short], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    xml_path = os.path.join(tmpdir_private, "junit.xml")
    r = compare(cli, ref, act, "v", "--junit", xml_path, "-q")
    assert r.returncode == 1, r.stderr
    suites = ET.parse(xml_path).getroot()
    assert suites.tag == "testsuites" and suites.get("tests") == "2" and suites.get("failures") == "1"
    (suite,) = list(suites)
    assert suite.tag == "testsuite" and suite.get("failures") == "1" and suite.get("errors") == "0"
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props == {"reference": ref, "actual": act, "window": "0 .. 3 s"}
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["v", "time span"]
    assert cases[0].get("classname") == "rtcosim.compare.e.csv"
    failure = cases[0].find("failure")
    assert failure.get("type") == "differs" and "the first at t = 0.46 s" in failure.get("message")
    assert failure.text == failure.get("message") and cases[1].find("failure") is None
    r = compare(cli, ref, short, "--junit", xml_path, "-q")
    assert r.returncode == 1
    cases = ET.parse(xml_path).getroot().find("testsuite").findall("testcase")
    span = cases[-1].find("failure")
    assert span.get("type") == "span" and span.get("message").startswith(short + " covers 0 .. 2 s")
    # a column named in Latin-1 (no UTF-8): U+FFFD in its place, the XML well-formed
    latin = os.path.join(tmpdir_private, "latin1.csv")
    with open(latin, "wb") as f:
        f.write(b'"time","temp\xb0C"\n0,1\n1,2\n')
    assert compare(cli, latin, latin, "--junit", xml_path, "-q").returncode == 0
    names = [c.get("name") for c in ET.parse(xml_path).getroot().iter("testcase")]
    assert names == ["temp\ufffdC", "time span"], names
    r = compare(cli, ref, ref, "--junit", "/dev/full", "-q")
    assert r.returncode == 2 and r.stderr == "rtcosim: /dev/full: writing the JUnit report failed\n", r.stderr


def test_plot_of_two_long_noisy_runs_stays_small_and_tells_them_apart(cli, tmpdir_private):
    """compare --plot of two 100 000-row noisy signals: the second file's
    series (dashed for short ones) is drawn as a thin solid line in a dark
    shade of the colour over the reference's band, not dashed: PLplot dashes
    in software, a path per dash, and this plot was a 44 MB SVG of 253 173
    paths. Both colours are in the picture: the Okabe-Ito blue #0072B2 and
    its shade (0, 114, 178) * 11/20 = #003E61."""
    t = np.arange(100000) * 1e-3
    paths = []
    for k, offset in enumerate((0.0, 0.3)):
        path = os.path.join(tmpdir_private, "r%d.csv" % k)
        with open(path, "w") as f:
            f.write("time,x\n")
            np.savetxt(f, np.c_[t, np.sin(t * 0.07) + 0.1 * np.sin(t * 1000) + offset * (t > 50)],
                       fmt="%.6g", delimiter=",")
        paths.append(path)
    svg = os.path.join(tmpdir_private, "c.svg")
    p = subprocess.run([cli, "compare", paths[0], paths[1], "--plot", svg], capture_output=True,
                       text=True)
    assert p.returncode == 1, p.stderr  # (they differ after 50 s)
    assert os.path.getsize(svg) < 1000000
    with open(svg) as f:
        picture = f.read()
    assert picture.count('stroke="#0072B2"') >= 2 and picture.count('stroke="#003E61"') >= 2
    assert picture.count("<polyline") < 2000
