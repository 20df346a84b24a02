#!/usr/bin/python3
"""ECU code built for the host as a shared object (models/ecu_engine/engine.c,
static state, no save/restore code) as a component of a system in
`rtcosim run`, in a loop with the crankshaft plant (tests/ecu/data/
engine_loop.ssd.in):

- the throttle column equals the engine ECU's control law computed here, in
  Python, from the speed column: the 1 ms task runs at k ms on the speed of
  that instant, its output shows at the next row, its integrator and clamps
  carry over from job to job (no CAN in a system: the brake never overrides);
- two ECUs on one object keep their own variables: in a system of two loops
  (the second plant with another load), the first loop's columns equal the
  single loop's bit for bit, the second's differ; the same under --speculate
  with threshold 0 (--reference: bit-identical, the ECUs roll back);
- anytime variants of the ECU (--variants ecu=steps:..) deliver the plain
  run's values, also for code that reaches its state through a pointer;
- bad objects and annotations: one line on stderr naming file and problem,
  exit 1.
usage: sil_component.py RTCOSIM_CLI engine_loop.ssd.in ECU_ENGINE_DIR"""
import csv, math, os, re, subprocess, sys, tempfile

cli, template, so_dir = sys.argv[1], sys.argv[2], sys.argv[3]
with open(template) as f:
    loop = f.read()
failures = []


def fail(msg):
    failures.append(msg)


def run(args, expect_ok=True):
    p = subprocess.run([cli, "run"] + args, capture_output=True, text=True, timeout=100)
    if expect_ok and p.returncode != 0:
        sys.exit("FAIL: %s\n%s" % (" ".join(args), p.stderr))
    return p


def columns(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return {name: [r[i] for r in rows[1:]] for i, name in enumerate(rows[0])}


def control_law(times, speeds):
    """engine.c's control_1ms at every row time, on the speed of that row;
    its output is the next row's throttle (the row at 0 is the initial 0)."""
    integral, out = 0.0, [0.0]
    for t, w in zip(times[:-1], speeds[:-1]):
        rpm = w * 60.0 / (2.0 * math.pi)
        target = 800.0 if t < 1.0 else 3000.0 if t < 6.0 else 1800.0
        e = target - rpm
        integral += e * 1e-3
        integral = min(300.0, max(-300.0, integral))
        u = 0.0015 * e + 0.002 * integral + 0.04
        out.append(0.0 if u < 0 else 1.0 if u > 1 else u)
    return out


def two_loops(so):
    """The loop twice (ecu_a/engine_a, ecu_b/engine_b) on one object."""
    start, end = loop.index("<ssd:Elements>") + len("<ssd:Elements>"), loop.index("</ssd:Elements>")
    elements = loop[start:end]
    cstart, cend = loop.index("<ssd:Connections>") + len("<ssd:Connections>"), loop.index(
        "</ssd:Connections>")
    connections = loop[cstart:cend]

    def renamed(text, suffix):
        for name in ("ecu", "engine"):
            text = text.replace('name="%s"' % name, 'name="%s_%s"' % (name, suffix))
            text = text.replace('Element="%s"' % name, 'Element="%s_%s"' % (name, suffix))
        return text

    out = loop[:start] + renamed(elements, "a") + renamed(elements, "b") + loop[end:cstart]
    out += renamed(connections, "a") + renamed(connections, "b") + loop[cend:]
    return out.replace("@ECU_SO@", so)


with tempfile.TemporaryDirectory() as d:
    so = os.path.join(so_dir, "ecu_engine.so")
    one, two = os.path.join(d, "one.ssd"), os.path.join(d, "two.ssd")
    with open(one, "w") as f:
        f.write(loop.replace("@ECU_SO@", so))
    with open(two, "w") as f:
        f.write(two_loops(so))

    # the control law, by hand
    run([one, "-q", "-o", os.path.join(d, "one.csv")])
    c1 = columns(os.path.join(d, "one.csv"))
    times = [float(x) for x in c1["time"]]
    want = control_law(times, [float(x) for x in c1["engine.w"]])
    got = [float(x) for x in c1["ecu.throttle"]]
    bad = [i for i in range(len(got)) if got[i] != want[i]]
    if len(got) != 2001 or bad:
        fail("throttle differs from the control law at rows %s (got %r, want %r)"
             % (bad[:5], [got[i] for i in bad[:3]], [want[i] for i in bad[:3]]))
    if not (0.9 < got[-1] or 300 < float(c1["engine.w"][-1])):
        fail("the loop did not follow the 3000 rpm target (w = %s)" % c1["engine.w"][-1])

    # two instances, plain and speculative
    for extra in ([], ["--speculate", "--reference"]):
        out = os.path.join(d, "two.csv")
        p = run([two, "-o", out, "--start-value", "engine_b.T_load", "40"] + extra)
        c2 = columns(out)
        for var in ("ecu.throttle", "engine.w"):
            a, b = var.replace(".", "_a.", 1), var.replace(".", "_b.", 1)
            if c2[a] != c1[var]:
                fail("%s: %s differs from the single loop's %s" % (" ".join(extra), a, var))
            if c2[b] == c1[var]:
                fail("%s: %s equals the single loop's %s (load 40 N.m should change it)"
                     % (" ".join(extra), b, var))
        if extra:
            if "(bit-identical)" not in p.stdout:
                fail("two loops under --speculate are not bit-identical:\n" + p.stdout)
            for ecu in ("ecu_a", "ecu_b"):
                m = re.search(r"\n  %s +\d+ +(\d+) " % ecu, p.stdout)
                if not m:
                    fail("no speculation row for %s:\n%s" % (ecu, p.stdout))

    # anytime variants (one load per variant, states moved between them): a
    # job runs at its release on the step's inputs whatever the micro step,
    # so every variant delivers the plain run's values; also with the
    # integrator behind a pointer into the object's own data
    pointer = os.path.join(d, "pointer.ssd")
    with open(pointer, "w") as f:
        f.write(loop.replace("@ECU_SO@", os.path.join(so_dir, "ecu_engine_pointer.so")))
    for system in (one, pointer):
        out = os.path.join(d, "variants.csv")
        p = run([system, "-o", out, "--variants", "ecu=steps:1e-3,2.5e-4,1e-4"])
        if not re.search(r"variants of ecu \(escalate\): 2000 periods", p.stdout):
            fail("no variants summary:\n" + p.stdout)
        if columns(out) != c1:
            fail("%s: --variants differs from the plain run" % os.path.basename(system))
    p = run([one, "-q", "--variants", "ecu=solvers:euler:1e-4,cvode"], expect_ok=False)
    if p.returncode == 0 or "ECU code as a shared object (give steps:)" not in p.stderr:
        fail("solvers: variants on an ECU object: %r" % p.stderr)

    # bad input: one line naming the file and the problem, exit 1
    def bad_case(label, text, pattern):
        path = os.path.join(d, label + ".ssd")
        with open(path, "w") as f:
            f.write(text)
        p = run([path, "-q", "-o", os.path.join(d, label + ".csv")], expect_ok=False)
        lines = p.stderr.strip().split("\n")
        if p.returncode != 1 or len(lines) != 1 or not re.search(pattern, lines[0]):
            fail("%s: exit %d, stderr %r (want one line matching %r)"
                 % (label, p.returncode, p.stderr, pattern))

    notelf = os.path.join(d, "text.so")
    with open(notelf, "w") as f:
        f.write("not an object\n")
    with_so = lambda name: loop.replace("@ECU_SO@", os.path.join(so_dir, name))
    bad_case("missing", with_so("no-such-engine.so"),
             r"missing\.ssd:\d+: component 'ecu': source '[^']*no-such-engine\.so' not found")
    bad_case("notelf", loop.replace("@ECU_SO@", notelf),
             r"notelf\.ssd:\d+: ecu 'ecu': [^ ]*text\.so: not an ELF file$")
    bad_case("no_entry", with_so("ecu_engine_no_entry.so"),
             r"no_entry\.ssd:\d+: ecu 'ecu': [^ ]*ecu_engine_no_entry\.so: no entry point "
             r"'control_1ms'")
    bad_case("tls", with_so("ecu_engine_tls.so"),
             r"tls\.ssd:\d+: ecu 'ecu': [^ ]*ecu_engine_tls\.so: has thread-local variables")
    bad_case("unloadable", with_so("ecu_engine_missing_dependency.so"),
             r"ecu_engine_missing_dependency\.so: cannot be loaded: libecu_absent_dependency\.so")
    no_annotation = re.sub(r"<ssd:Annotations>\s*<ssc:Annotation type=\"org.rtcosim.ecu\">.*?"
                           r"</ssd:Annotations>", "", with_so("ecu_engine.so"), flags=re.S)
    bad_case("no_annotation", no_annotation,
             r"no_annotation\.ssd:\d+: component 'ecu': source '[^']*ecu_engine\.so' is ECU code"
             r" as a shared object and needs the org.rtcosim.ecu annotation")
    bad_case("bad_period", with_so("ecu_engine.so").replace('period="0.01"', 'period="0"'),
             r"bad_period\.ssd:\d+: rtcosim ecu: task period must be positive, got \"0\"")
    bad_case("unknown_attr", with_so("ecu_engine.so").replace('offset="0.0005"', 'ofset="0"'),
             r"unknown_attr\.ssd:\d+: rtcosim ecu: unknown task attribute 'ofset'")
    bad_case("duplicate", with_so("ecu_engine.so").replace('actuators="throttle"',
                                                           'actuators="speed"'),
             r"duplicate\.ssd:\d+: rtcosim ecu: 'speed' is named twice among the sensors and actuators")
    bad_case("fmu_annotated", with_so("ecu_engine.so").replace(
        'source="%s" type="application/x-sharedlib"' % os.path.join(so_dir, "ecu_engine.so"),
        'source="rtcosim:ecus.engine"'),
             r"component 'ecu': the org.rtcosim.ecu annotation needs a shared object \(.so\) as"
             r" its source, not 'rtcosim:ecus.engine'")

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("ok: control law by hand, two instances apart (plain and speculative), variants, "
      "10 bad inputs")
