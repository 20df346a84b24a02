"""`rtcosim run --can-bus ... --can-log F` (not real time) writes its log while
the run goes: a long run's frames do not pile up in memory, and a run that is
killed leaves the file of what its bus carried, which python-can reads. Before,
the bus held every frame and wrote the file after the run (none when it was
killed; 20 MB more peak memory for 180 s more of two LS-BUS nodes)."""
import os
import signal
import subprocess
import time

import can
import pytest

from conftest import CAN_NODE_CONNECTORS, fmu, instrumented, write_ssd
from test_can_logs import peak_kb


def nodes(tmpdir):
    """Two LS-BUS CAN node FMUs, a frame each per ms (0x0C8 and 0x123)."""
    return write_ssd(os.path.join(tmpdir, "nodes.ssd"),
                     {"a": fmu("LsBusNode-fmi3.fmu"), "b": fmu("LsBusNode-fmi3.fmu")},
                     CAN_NODE_CONNECTORS)


def run_args(cli, ssd, stop, log, out):
    return [cli, "run", ssd, "--step-size", "0.001", "--stop-time", str(stop), "-q",
            "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.can_id", "291",
            "--can-log", log, "-o", out]


@pytest.mark.parametrize("bus", ["bridge", "kernel"])
def test_a_long_run_logs_in_flat_memory(cli, tmpdir_private, bus):
    if instrumented(cli):
        pytest.skip("a sanitizer build's resident size is no measure")
    ssd = nodes(tmpdir_private)
    log = os.path.join(tmpdir_private, "bus.log")
    out = os.path.join(tmpdir_private, "out.csv")

    def peak(stop):
        argv = run_args(cli, ssd, stop, log, out)
        if bus == "kernel":  # the event kernel's bus, with one of the example ECUs
            argv[argv.index("--can-bus") + 1] = "can0=a.CAN,b.CAN,ecus:1"
        return peak_kb(argv)

    short, long = peak(20), peak(200)
    # the nodes' 399 998 frames in the long run's file (the ECU's beside them
    # on the kernel's bus), each once, in time order
    with can.CanutilsLogReader(log) as reader:
        frames = list(reader)
    ours = [m for m in frames if m.arbitration_id in (0x0C8, 0x123)]
    # (the bridge's run ends before the last 0x123 that ends at the stop
    # time is delivered, the kernel's bus after)
    assert len(ours) == 2 * 200 * 1000 - (2 if bus == "bridge" else 1)
    assert len(frames) > len(ours) if bus == "kernel" else len(frames) == len(ours)
    assert all(a.timestamp <= b.timestamp for a, b in zip(frames, frames[1:]))
    assert long - short < 4 * 1024, (short, long)


def test_a_killed_run_leaves_the_frames_so_far(cli, tmpdir_private):
    ssd = nodes(tmpdir_private)
    log = os.path.join(tmpdir_private, "bus.log")
    out = os.path.join(tmpdir_private, "out.csv")
    p = subprocess.Popen(run_args(cli, ssd, 1e6, log, out), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not os.path.exists(log) or
                                               os.path.getsize(log) < 200_000):
            time.sleep(0.05)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert os.path.getsize(log) >= 200_000
    with open(log) as f:
        lines = f.read().splitlines(keepends=True)
    whole = [line for line in lines if line.endswith("\n")]  # (the last may be cut)
    assert len(whole) > 5000
    cut = os.path.join(tmpdir_private, "whole.log")
    with open(cut, "w") as f:
        f.writelines(whole)
    with can.CanutilsLogReader(cut) as reader:
        frames = list(reader)
    assert len(frames) == len(whole)
    # a frame of each node per ms from 1.1 ms on: 0x0C8 then 0x123
    assert [m.arbitration_id for m in frames[:4]] == [0x0C8, 0x123, 0x0C8, 0x123]
    assert frames[0].timestamp == pytest.approx(0.0011, abs=1e-9)
