#!/usr/bin/python3
"""`rtcosim events --serve` and `rtcosim demo --serve` end to end: the view
serves the run's values, the bus's frames per second, the demo vehicle's
tunables (not an input the system connects across its parts), and its stop
ends the run with the results and summary written, exit code 0.

With `rtcosim run --can-bus` (two LS-BUS node FMUs on rtcosim's bus) the
page counts the bus's frames per second.

usage: test_serve_cli.py RTCOSIM LSBUS_NODE_FMU"""
import json
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

RTCOSIM, NODE = sys.argv[1], sys.argv[2]
CONNECTORS = ('<ssd:Connectors><ssd:Connector name="CAN.Tx_Data" kind="output"/>'
              '<ssd:Connector name="CAN.Tx_Clock" kind="output"/>'
              '<ssd:Connector name="CAN.Rx_Data" kind="input"/>'
              '<ssd:Connector name="CAN.Rx_Clock" kind="input"/></ssd:Connectors>')


def start(args, cwd):
    proc = subprocess.Popen([RTCOSIM] + args, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    started.append(proc)
    for line in proc.stderr:
        m = re.search(r"live view: http://127\.0\.0\.1:(\d+)/", line)
        if m:
            print("live view on port", m.group(1))
            return proc, int(m.group(1))
    raise AssertionError("no live view line; exit " + str(proc.wait()))


def explain(proc):
    """A check failed while the run was up: end it and show what it said."""
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate(timeout=60)
    print("the run's exit:", proc.returncode, "\nits stdout:\n" + out[-4000:] +
          "\nits stderr:\n" + err[-4000:], file=sys.stderr)


def call(port, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"},
                                 method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def events(tmp):
    proc, port = start(["events", "--stop-time", "100000", "--serve", "0", "-q"], tmp)
    status, v = wait_for("the events run's time past 0", lambda: call(port, "/api/values"),
                         lambda r: r[0] != 200 or (r[1]["time"] or 0) > 0)
    assert status == 200 and v["time"] > 0, v
    assert set(v["values"]) == {"simulated_time", "can0.frames"}, v
    status, st = wait_for("the bus's frames per second above 0", lambda: call(port, "/api/stats"),
                          lambda r: r[0] != 200 or r[1]["can"][0]["frames_per_s"] > 0)
    assert st["can"][0]["bus"] == "can0" and st["can"][0]["frames_per_s"] > 0, st
    status, info = call(port, "/api/info")
    assert info["mode"] == "events" and info["controls"] == ["stop"], info
    assert call(port, "/api/stop", {})[0] == 200
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "stopped by the live view's stop" in err, err
    assert re.search(r"can bus\s+\d+ frames", out), out
    print("events: served, counted frames, stopped")


def demo(tmp):
    proc, port = start(["demo", "--serve", "0", "--duration", "60", "--output-dir", "out"], tmp)
    status, info = call(port, "/api/info")
    names = [t["name"] for t in info["tunable"]]
    assert "ecu.kp" in names and "body.traction_force" not in names, names
    status, r = call(port, "/api/set", {"name": "body.traction_force", "value": 1})
    assert status == 400 and r["name"] == "body.traction_force", r
    assert "fed by a connection" in r["error"], r
    status, r = call(port, "/api/set", {"name": "ecu.kp", "value": 0.25})
    assert status == 200, r
    # Accepted is not yet applied (at the next frame): stop once it is, and
    # once a frame is logged (a demo stopped before its first frame says so
    # and plots nothing).
    status, st = wait_for("the demo to apply the tuning and log a frame",
                          lambda: call(port, "/api/stats"),
                          lambda r: r[0] != 200 or (r[1]["tuning_applied"] >= 1 and
                                                    r[1]["frames"] >= 1))
    assert status == 200 and st["tuning_applied"] == 1, st
    assert call(port, "/api/stop", {})[0] == 200
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "tuned: ecu.kp = 0.25 at t = " in out, out
    with open(os.path.join(tmp, "out", "realtime", "tuning.csv")) as f:
        assert f.readline() == '"time","name","value"\n' and ',"ecu.kp",0.25' in f.readline()
    print("demo: tunables, refusal, tuning logged, stopped")


def can_bus(tmp):
    with open(os.path.join(tmp, "nodes.ssd"), "w") as f:
        f.write('<?xml version="1.0"?>\n<ssd:SystemStructureDescription version="1.0" name="lsbus" '
                'xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">'
                '<ssd:System name="lsbus"><ssd:Elements>'
                f'<ssd:Component name="a" source="{NODE}">{CONNECTORS}</ssd:Component>'
                f'<ssd:Component name="b" source="{NODE}">{CONNECTORS}</ssd:Component>'
                '</ssd:Elements></ssd:System></ssd:SystemStructureDescription>\n')
    proc, port = start(["run", "nodes.ssd", "--can-bus", "can0=a.CAN,b.CAN", "--step-size", "0.001",
                        "--stop-time", "100000", "--serve", "0", "-q", "--output-file", "n.csv"], tmp)
    status, st = wait_for("the bus's frames and frames per second above 0",
                          lambda: call(port, "/api/stats"),
                          lambda r: r[0] != 200 or (r[1]["can"][0]["frames"] > 0 and
                                                    r[1]["can"][0]["frames_per_s"] > 0))
    assert status == 200 and st["can"][0]["bus"] == "can0" and st["can"][0]["frames"] > 0, st
    assert st["can"][0]["frames_per_s"] > 0, st
    assert call(port, "/api/stop", {})[0] == 200
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "can bus can0: 500000 bit/s" in out, out
    print("run --can-bus: frames per second served, stopped")


started = []
tmp = tempfile.mkdtemp(prefix="rtcosim-serve-cli-")
try:
    events(tmp)
    demo(tmp)
    can_bus(tmp)
except BaseException:
    if started and started[-1].returncode is None:
        explain(started[-1])
    raise
finally:
    shutil.rmtree(tmp)
