#!/usr/bin/python3
"""rtcosim run --step-control end to end on the B2 oscillator SSD, case 3
(dampers 5 N s/m, a decaying transient), 10 s, FOH + energy correction, rows
every 10 ms: at --step-tolerance 1e-4 the adaptive run takes at most half the
macro steps of the fixed H = 1 ms run (10 000) and its RMS error of x1, x2
against exp(A t) z0 (computed here, independently: Taylor series with scaling
and squaring in plain Python) is within 1.2x of the fixed run's (issue 28's
target for benchmark B2). Rows land on --output-interval.
usage: step_control_e2e.py RTCOSIM_CLI SOURCE_DIR"""
import csv, math, os, re, subprocess, sys, tempfile

cli, src = sys.argv[1], sys.argv[2]
ssd = os.path.join(src, "examples/oscillator/oscillator.ssd")
ssv = os.path.join(src, "examples/oscillator/case3.ssv")

# B2 case 3: m = 1, k1 = 10, k2 = 1000, kc = 100, all dampers c = 5; z = (x1, v1, x2, v2).
m1 = m2 = 1.0; k1, k2, kc = 10.0, 1000.0, 100.0; c1 = c2 = cc = 5.0
A = [[0, 1, 0, 0],
     [-(k1 + kc) / m1, -(c1 + cc) / m1, kc / m1, cc / m1],
     [0, 0, 0, 1],
     [kc / m2, cc / m2, -(k2 + kc) / m2, -(c2 + cc) / m2]]
z0 = [0.0, 100.0, 0.0, -100.0]

def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]

def expm(a):
    norm = max(sum(abs(x) for x in row) for row in a)
    s = max(0, int(math.ceil(math.log2(norm))) + 2) if norm > 0 else 0
    b = [[x / 2 ** s for x in row] for row in a]
    out = [[float(i == j) for j in range(4)] for i in range(4)]
    term = [row[:] for row in out]
    for n in range(1, 30):
        term = [[x / n for x in row] for row in matmul(term, b)]
        out = [[out[i][j] + term[i][j] for j in range(4)] for i in range(4)]
    for _ in range(s):
        out = matmul(out, out)
    return out

def run(extra, out):
    cmd = [cli, "run", ssd, "--parameter-set", ssv, "--stop-time", "10", "--step-size", "1e-3",
           "--coupling", "foh", "--correction", "energy", "--output-interval", "0.01",
           "--output-file", out, "--quiet"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s: %s" % (" ".join(cmd), p.stderr))
    steps = int(re.search(r"in (\d+) steps", p.stdout).group(1))
    with open(out) as f:
        rows = list(csv.DictReader(f))
    # Rows on the output grid only, every 10 ms from 0 to 10 s.
    times = [float(r["time"]) for r in rows]
    if len(times) != 1001 or any(abs(t - 0.01 * i) > 1e-9 for i, t in enumerate(times)):
        sys.exit("FAIL: rows not on the 10 ms grid: %d rows, %s..." % (len(times), times[:5]))
    step = expm([[x * 0.01 for x in row] for row in A])
    z, sq, amp = z0[:], 0.0, 0.0
    for i, r in enumerate(rows):
        if i:
            z = [sum(step[a][b] * z[b] for b in range(4)) for a in range(4)]
        sq += (float(r["mass1.x"]) - z[0]) ** 2 + (float(r["mass2.x"]) - z[2]) ** 2
        amp = max(amp, abs(z[0]), abs(z[2]))
    return steps, math.sqrt(sq / (2 * len(rows))), amp, p.stdout

with tempfile.TemporaryDirectory() as d:
    rtol = 1e-4
    fixed_steps, fixed_err, _, _ = run([], os.path.join(d, "fixed.csv"))
    ad_steps, ad_err, _, out = run(["--step-control", "--step-tolerance", "%g" % rtol],
                                   os.path.join(d, "adaptive.csv"))
    print("fixed: %d steps, rms %.4g m; adaptive: %d steps, rms %.4g m" %
          (fixed_steps, fixed_err, ad_steps, ad_err))
    if not re.search(r"step control: %d steps, smallest [0-9.e-]+ s, largest [0-9.e-]+ s" % ad_steps, out):
        sys.exit("FAIL: no step control summary line:\n" + out)
    if fixed_steps != 10000:
        sys.exit("FAIL: the fixed run took %d steps, not 10000" % fixed_steps)
    if not 2 * ad_steps <= fixed_steps:
        sys.exit("FAIL: adaptive %d steps, more than half of the fixed %d" % (ad_steps, fixed_steps))
    if not ad_err <= 1.2 * fixed_err:
        sys.exit("FAIL: adaptive rms %.4g m above 1.2 x the fixed run's %.4g m" % (ad_err, fixed_err))
print("ok")
