#!/usr/bin/python3
"""A tuning request through the live view changes the results exactly as the
hand-computed response to that parameter step says.

The system: the project's Dahlquist FMU, der(x) = -k*x stepped by explicit
Euler inside (10 micro steps of dt = H/10 per 1 ms macro step, x0 = 1), so
x(t_n) = (1 - k*dt)^(10 n) exactly, and after k changes from k1 to k2 at the
step boundary t1 (the time the run logs for it): x(t) = x(t1) * (1 - k2*dt)^(10 (t - t1)/H).
Real time: `rtcosim run --real-time --serve 0`, k set while it runs.
Offline: `rtcosim run --serve 0`, paused (time stands still), k set,
resumed, stopped from the view (exit code 0, results so far written).

usage: test_serve_tuning.py RTCOSIM DAHLQUIST_FMU"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from waiting import wait_for  # noqa: E402

RTCOSIM, FMU = sys.argv[1], sys.argv[2]
H = 0.001
DT = H / 10


def ssd(path):
    with open(path, "w") as f:
        f.write(f"""<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="decay"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="decay"><ssd:Elements>
    <ssd:Component name="plant" source="{FMU}"/>
  </ssd:Elements></ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
""")


def start(args, cwd):
    proc = subprocess.Popen([RTCOSIM] + args, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    started.append(proc)
    line = proc.stderr.readline()
    m = re.search(r"live view: http://127\.0\.0\.1:(\d+)/", line)
    assert m, "no live view line: " + line
    print("live view on port", m.group(1))
    return proc, int(m.group(1))


def call(port, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"},
                                 method="GET" if body is None else "POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def read_rows(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "plant.x"], rows[0]
    return [(float(t), float(x)) for t, x in rows[1:]]


def read_tuning(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "name", "value"], rows[0]
    return [(float(t), n, float(v)) for t, n, v in rows[1:]]


def expected(t, k1, k2, t1):
    """x(t) by the Euler recurrence, k1 up to t1 and k2 after."""
    if t <= t1 + 1e-12:
        return (1 - k1 * DT) ** round(t / DT)
    return (1 - k1 * DT) ** round(t1 / DT) * (1 - k2 * DT) ** round((t - t1) / DT)


def check(rows, k1, k2, t1, tol):
    worst = 0.0
    for t, x in rows:
        want = expected(t, k1, k2, t1)
        err = abs(x - want) / abs(want)
        worst = max(worst, err)
        assert err <= tol, f"t = {t}: x = {x!r}, expected {want!r} (k {k1} -> {k2} at {t1})"
    # The step is visible: the old law alone misses the rows after t1.
    after = [(t, x) for t, x in rows if t > t1 + 0.5 * H]
    assert after, "no rows after the tuning"
    t, x = after[-1]
    assert abs(x - (1 - k1 * DT) ** round(t / DT)) / x > 100 * tol
    print(f"{len(rows)} rows match the response to k: {k1} -> {k2} at t1 = {t1} s "
          f"(worst relative error {worst:.3g})")


def real_time(tmp):
    proc, port = start(["run", "decay.ssd", "--real-time", "--step-size", "0.001",
                        "--stop-time", "4", "--serve", "0", "-q", "--rt-report", "report",
                        "--output-file", "rt.csv"], tmp)
    # k is set once the run is past 0.1 s (the step is not at its start); the
    # run's time is at least the sample's.
    wait_for("the real-time run past t = 0.1 s", lambda: call(port, "/api/values"),
             lambda v: v["time"] is not None and v["time"] > 0.1)
    # The one deadline left: the request must reach the run within its 4 s,
    # 3.9 s of slack on a loaded machine (the difference between the FMU's
    # recurrence and pow grows with the steps, 1.1e-12 at t = 2.4 s: the
    # check below allows 5e-12, about twice the drift at 4 s).
    reply = call(port, "/api/set", {"name": "plant.k", "value": 4})
    assert reply["ok"] is True, reply
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert os.path.exists(os.path.join(tmp, "rt.tuning.csv")), \
        "the run ended before it applied k (no rt.tuning.csv):\n" + out
    tuning = read_tuning(os.path.join(tmp, "rt.tuning.csv"))
    assert len(tuning) == 1 and tuning[0][1] == "plant.k" and tuning[0][2] == 4.0, tuning
    assert read_tuning(os.path.join(tmp, "report", "tuning.csv")) == tuning
    t1 = tuning[0][0]
    assert 0.1 < t1 < 4, t1
    assert "tuned: plant.k = 4 at t = " in out, out
    check(read_rows(os.path.join(tmp, "rt.csv")), 1.0, 4.0, t1, 5e-12)


def offline(tmp):
    # Slow decay so that x stays far from zero over a long run.
    proc, port = start(["run", "decay.ssd", "--step-size", "0.001", "--stop-time", "100000",
                        "--start-value", "plant.k", "0.001", "--output-interval", "0.5",
                        "--serve", "0", "-q", "--output-file", "off.csv"], tmp)
    assert call(port, "/api/pause", {})["state"] == "paused"
    # Time stands still: two samples the server took at different wall times
    # (its "wall") carry the same simulated time (the run waits at a step).
    seen = []

    def last_two():
        seen.append(call(port, "/api/values"))
        return seen[-2:]

    def stands_still(pair):
        return (len(pair) == 2 and all(v["state"] == "paused" and v["time"] is not None
                                       for v in pair)
                and pair[1]["wall"] > pair[0]["wall"] and pair[0]["time"] == pair[1]["time"])
    a, b = wait_for("two samples at one simulated time while paused", last_two, stands_still,
                    interval=0.1)
    assert call(port, "/api/set", {"name": "plant.k", "value": 0.003})["ok"]
    bad = urllib.request.Request(f"http://127.0.0.1:{port}/api/set",
                                 data=b'{"name":"plant.x0","value":2}',
                                 headers={"Content-Type": "application/json"}, method="POST")
    try:
        urllib.request.urlopen(bad, timeout=30)
        raise AssertionError("x0 accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 400 and json.loads(e.read())["name"] == "plant.x0"
    c = call(port, "/api/values")
    assert c["state"] == "paused" and c["time"] == a["time"], (a, c)
    call(port, "/api/resume", {})
    # Rows after the tuning (one every 0.5 s): the run goes 2 s past it.
    wait_for("the resumed run 2 s past the pause", lambda: call(port, "/api/values"),
             lambda v: v["state"] == "running" and v["time"] >= a["time"] + 2)
    call(port, "/api/stop", {})
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "interrupted by the live view's stop" in err, err
    tuning = read_tuning(os.path.join(tmp, "off.tuning.csv"))
    assert len(tuning) == 1 and tuning[0][2] == 0.003, tuning
    t1 = tuning[0][0]
    assert abs(t1 - (a["time"] or 0)) < 1e-9, (t1, a["time"])  # applied where it paused
    # Long runs: (1 - k dt)^n by pow against the recurrence, ~1e-9 relative.
    check(read_rows(os.path.join(tmp, "off.csv")), 0.001, 0.003, t1, 1e-8)


started = []


def main():
    tmp = tempfile.mkdtemp(prefix="rtcosim-serve-")
    try:
        ssd(os.path.join(tmp, "decay.ssd"))
        real_time(tmp)
        offline(tmp)
    finally:
        for proc in started:  # a failed check leaves no run behind
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp)


main()
