#!/usr/bin/python3
"""rtcosim run --coupling-stats on the oscillator SSD made a ramp by hand:
mass1 free (k1 = c1 = 0, m1 = 1, v0 = 1) so x1 = t exactly, mass2 without
coupling spring or damper (kc = cc = 0) so F = 0. With ZOH and H = 0.1 s the
extrapolation error of mass1.x -> mass2.x1 over every step [t, t + H] is
integral(t' dt') - H t = H^2 / 2 = 0.005 (hand-computed); v1 = 1 and F = 0
are held exactly (E = 0), and the bond (F, v1) carries no energy (F = 0,
no correction of F): residual and correction energy 0.
usage: coupling_stats_ramp.py RTCOSIM_CLI SOURCE_DIR"""
import csv, os, re, subprocess, sys, tempfile

cli, src = sys.argv[1], sys.argv[2]
ssd = os.path.join(src, "examples/oscillator/oscillator.ssd")
params = {"mass1.m": 1, "mass1.k": 0, "mass1.c": 0, "mass1.x0": 0, "mass1.v0": 1,
          "mass2.m": 1, "mass2.k": 0, "mass2.c": 0, "mass2.kc": 0, "mass2.cc": 0,
          "mass2.x0": 0, "mass2.v0": 0}
H = 0.1
with tempfile.TemporaryDirectory() as d:
    stats = os.path.join(d, "coupling.csv")
    cmd = [cli, "run", ssd, "--stop-time", "1", "--step-size", str(H), "--coupling", "zoh",
           "--correction", "dead-time", "--quiet", "--coupling-stats", stats]
    for name, value in params.items():
        cmd += ["--start-value", name, str(value)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s\n%s" % (" ".join(cmd), p.stderr))
    m = re.search(r"coupling error: mass1.x -> mass2.x1: RMS ([0-9.e+-]+), max ([0-9.e+-]+)"
                  r" \(integral per interval\) over (\d+) intervals", p.stdout)
    if not m or abs(float(m.group(1)) - H * H / 2) > 1e-9 or int(m.group(3)) != 10:
        sys.exit("FAIL: summary line for mass1.x:\n" + p.stdout)
    if not re.search(r"power bond 1: energy created by the coupling -?0 J, injected by the "
                     r"correction -?0 J", p.stdout):
        sys.exit("FAIL: bond line:\n" + p.stdout)
    with open(stats) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    want = ["time", "E mass1.x -> mass2.x1", "E mass1.v -> mass2.v1", "E mass2.F -> mass1.F",
            "bond1 residual J", "bond1 correction J"]
    if head != want:
        sys.exit("FAIL: header %s" % head)
    if len(rows) != 11:
        sys.exit("FAIL: %d rows, want 10 macro steps" % (len(rows) - 1))
    for i, r in enumerate(rows[1:], 1):
        v = [float(x) for x in r]
        if abs(v[0] - i * H) > 1e-9 or abs(v[1] - H * H / 2) > 1e-12 or any(v[2:]):
            sys.exit("FAIL: row %d: %s" % (i, r))
print("ok")
