"""`rtcosim run --can-signals`: components with plain signal ports talking
over a CAN bus through a DBC. Truth: the run's own CSV columns of the
sender (the Dahlquist FMU's x) turned into what the receiver must see by
the DBC's rules written out here (raw = round(x / 0.01), a frame every 10 ms
from 0 carrying the value of its communication point, Jacobi's one-step
delays), and python-can's reader of the bus log."""
import csv
import os
import subprocess

import can
import pytest

DBC = """VERSION ""

BU_: A B

BO_ 256 Speed: 2 A
 SG_ x : 0|16@1- (0.01,0) [-327.68|327.67] "" B

BO_ 512 Echo: 2 B
 SG_ Float64_continuous_output : 0|16@1- (0.01,0) [-327.68|327.67] "" A

BA_DEF_ BO_ "GenMsgCycleTime" INT 0 10000;
BA_ "GenMsgCycleTime" BO_ 256 10;
BA_ "GenMsgCycleTime" BO_ 512 5;
"""


def q(v):
    return round(v / 0.01) * 0.01


@pytest.fixture
def run(cli, tmpdir_private):
    from conftest import fmu, write_ssd
    dbc = os.path.join(tmpdir_private, "s.dbc")
    with open(dbc, "w") as f:
        f.write(DBC)
    ssd = write_ssd(os.path.join(tmpdir_private, "s.ssd"),
                    {"a": fmu("Dahlquist-fmi2.fmu"), "b": fmu("Feedthrough-fmi2.fmu")})

    def go(spec=None, extra=(), name="out.csv"):
        out = os.path.join(tmpdir_private, name)
        log = os.path.join(tmpdir_private, "bus.blf")
        spec = spec or "can0=" + dbc + ",A=a,B=b,b.Float64_continuous_input=Speed.x"
        r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.1",
                            "-o", out, "--can-log", log, "--can-signals", spec] + list(extra),
                           capture_output=True, text=True)
        rows = []
        if r.returncode == 0:
            with open(out) as f:
                rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
        return r, rows, log
    return go


def test_signals_cross_the_bus_quantized_and_late(run):
    r, rows, log = run()
    assert r.returncode == 0, r.stderr
    x = {round(row["time"] * 1000): row["a.x"] for row in rows}
    for row in rows:
        ms = round(row["time"] * 1000)
        # the bus output: the last Speed frame that ended by this row (frames
        # at 10 ms steps end 0.13 ms later, seen at the next row)
        k = (ms - 1) // 10 * 10
        assert row["can0.rx.Speed.x"] == (pytest.approx(q(x[k]), abs=1e-12) if ms >= 1 else 0)
        # b's input one step later, its output the same step
        k = (ms - 2) // 10 * 10
        assert row["b.Float64_continuous_output"] == (
            pytest.approx(q(x[k]), abs=1e-12) if ms >= 2 else 0)
    # b's output goes back as Echo (every 5 ms, found by name): the value b
    # had at the frame's communication point
    b = {round(row["time"] * 1000): row["b.Float64_continuous_output"] for row in rows}
    for row in rows:
        ms = round(row["time"] * 1000)
        k = (ms - 1) // 5 * 5
        assert row["can0.rx.Echo.Float64_continuous_output"] == (
            pytest.approx(q(b[k]), abs=1e-12) if ms >= 1 else 0)
    # the bus log: Speed at 0, 10, ..., 90 ms and Echo at 0, 5, ..., 95 ms
    # (messages due at the stop time belong to a step that is not taken)
    frames = list(can.BLFReader(log))
    speed = [m for m in frames if m.arbitration_id == 0x100]
    assert len(speed) == 10 and len([m for m in frames if m.arbitration_id == 0x200]) == 20
    for i, m in enumerate(speed):
        raw = int.from_bytes(m.data, "little", signed=True)
        assert raw == round(x[10 * i] / 0.01)
        assert 0.010 * i < m.timestamp < 0.010 * i + 0.0004
    assert "can bus can0: 500000 bit/s (DBC signals), 30 frames" in r.stdout


def test_a_real_time_run_gives_the_offline_rows(run):
    """`--real-time` (on a virtual clock: the paced loop without waiting):
    the bus steps on the paced thread and the results, the bus's own rx
    columns included, equal the offline run's row for row."""
    r, offline, _ = run(name="offline.csv")
    assert r.returncode == 0, r.stderr
    r, paced, _ = run(extra=["--real-time", "--virtual-clock"], name="paced.csv")
    assert r.returncode == 0, r.stderr
    assert paced == offline and "can0.rx.Speed.x" in paced[0]
    assert "can bus can0: 500000 bit/s (DBC signals), 30 frames" in r.stdout


def test_bad_signal_bus_options_get_one_line(run, tmpdir_private):
    dbc = "can1=" + os.path.join(tmpdir_private, "s.dbc")
    for spec, want in (
            ("can1=/nonexistent.dbc,A=a", "/nonexistent.dbc"),
            (dbc + ",A=zz", "no component 'zz'"),
            (dbc + ",A=a,b.nope=Speed.x", "no variable 'b.nope'"),
            (dbc + ",A=a,b.Float64_discrete_input=Speed.y", "no signal 'Speed.y'"),
            (dbc + ",B=b,a.x=Speed.x", "a.x sends Speed.x, a message of node A: map A=a"),
            (dbc, "no NODE=COMP")):
        r, _, _ = run(spec)
        assert r.returncode != 0 and r.stderr.count("\n") == 1 and want in r.stderr, r.stderr


def test_a_recorded_log_drives_a_component_through_the_dbc(cli, tmpdir_private):
    """`--can-signals can0=vehicle.dbc,replay:LOG,b.IN=EngineData.EngineSpeed`:
    the 4-ECU vehicle's recorded BLF played onto the signal bus reaches the
    Feedthrough FMU's input as the DBC decodes it. Truth: python-can's
    frames of the log, EngineSpeed decoded by hand (bytes 0-1 little-endian
    x 0.25, as examples/ecus/vehicle.c packs it); a frame's value is on the
    bus's output from the first row at or after its end and in b's output a
    step later."""
    from conftest import fmu, source, write_ssd
    log = os.path.join(tmpdir_private, "rec.blf")
    subprocess.run([cli, "events", "--ecus", "4", "--stop-time", "0.2", "--quiet", "--can-log",
                    log], check=True, capture_output=True)
    ssd = write_ssd(os.path.join(tmpdir_private, "f.ssd"), {"b": fmu("Feedthrough-fmi2.fmu")})
    out = os.path.join(tmpdir_private, "out.csv")
    dbc = source("examples", "ecus", "vehicle.dbc")
    r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.15", "-o", out,
                        "--can-signals", f"can0={dbc},replay:{log},"
                        "b.Float64_continuous_input=EngineData.EngineSpeed"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    frames = [(round(m.timestamp * 1e9), int.from_bytes(m.data[0:2], "little") * 0.25)
              for m in can.BLFReader(log) if m.arbitration_id == 0x0C0]
    with open(out) as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    assert len(rows) == 151 and len(frames) > 10

    def last_before(ns):
        seen = [v for end, v in frames if end <= ns]
        return seen[-1] if seen else 0.0
    for row in rows:
        ns = round(row["time"] * 1e9)
        assert row["can0.rx.EngineData.EngineSpeed"] == last_before(ns)
        assert row["b.Float64_continuous_output"] == last_before(ns - 1_000_000)
    assert "can bus can0: replay of 54 frames from log time 0.000000 s" in r.stdout
