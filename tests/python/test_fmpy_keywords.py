"""simulate() with FMPy's keywords (step_size, validate, fmi_call_logger,
record_events) against independent truth: the CLI's CSV and FMI call log,
the FMI 2.0 co-simulation calling sequence (FMI 2.0 section 4.2.4), the
bouncing ball's event times and values worked out by hand; unknown keywords,
progress once per percent, statistics keys with units."""
import logging
import os
import shutil
import subprocess
import zipfile

import numpy as np
import pytest

import rtcosim
from conftest import fmu, source
from test_simulate import assert_equals_cli_csv, read_csv

SSD = source("examples", "oscillator", "oscillator.ssd")


def test_step_size_is_the_communication_step_and_output_interval_a_multiple(cli, tmpdir_private):
    out = os.path.join(tmpdir_private, "out.csv")
    subprocess.run([cli, "simulate", fmu("Dahlquist-fmi2.fmu"), "--stop-time", "1",
                    "--step-size", "0.01", "-o", out], check=True)
    every_step = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, step_size=0.01)
    assert_equals_cli_csv(every_step, out)  # --step-size 0.01, as the CLI's
    sampled = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, step_size=0.01,
                               output_interval=0.1)
    # Rows every 0.1 s (11 of them) from the same 100 steps of 0.01 s.
    assert len(every_step) == 101 and len(sampled) == 11
    assert list(sampled["time"]) == [k / 10 for k in range(11)]
    assert np.array_equal(sampled["x"], every_step["x"][::10])
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, step_size=0.01,
                         output_interval=0.015)
    assert "output_interval" in str(e.value) and "step_size" in str(e.value)


def broken_copy(directory, name, old, new):
    """The FMU with one text of its modelDescription.xml replaced."""
    path = os.path.join(directory, "Broken-" + name)
    with zipfile.ZipFile(fmu(name)) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "modelDescription.xml":
                assert old.encode() in data
                data = data.replace(old.encode(), new.encode())
            dst.writestr(item, data)
    return path


def test_validate_refuses_a_broken_model_description_with_its_message(tmpdir_private, caplog):
    """A DefaultExperiment stepSize of -0.01 breaks FMI 2.0 section 2.2.5
    (a step size is positive): refused by default (FMPy's validate=True),
    accepted with a warning naming it when validate=False."""
    with zipfile.ZipFile(fmu("Dahlquist-fmi2.fmu")) as z:
        text = z.read("modelDescription.xml").decode()
    start = text.index('stepSize="')
    old = text[start:text.index('"', start + len('stepSize="')) + 1]
    broken = broken_copy(tmpdir_private, "Dahlquist-fmi2.fmu", old, 'stepSize="-0.01"')
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(broken, stop_time=0.1, output_interval=0.01)
    message = str(e.value)
    assert "stepSize" in message and "not positive" in message and "validate=False" in message
    assert "Broken-Dahlquist-fmi2.fmu" in message and "\n" not in message
    with caplog.at_level(logging.WARNING, logger="rtcosim"):
        r = rtcosim.simulate(broken, validate=False, stop_time=0.1, output_interval=0.01)
    assert len(r) == 11
    assert any("stepSize" in m and "accepted" in m for m in caplog.messages)
    # A file no validation setting makes loadable gets no such hint.
    junk = os.path.join(tmpdir_private, "junk.fmu")
    with open(junk, "wb") as f:
        f.write(b"not a zip archive")
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(junk)
    assert "junk.fmu" in str(e.value) and "validate" not in str(e.value)
    # Nor does an input table's problem, which validate=False would not change.
    import numpy as np
    backwards = np.array([(1.0, 1.0), (0.5, 2.0)], dtype=[("time", float), ("u", float)])
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Feedthrough-fmi2.fmu"), stop_time=1,
                         input=backwards.astype([("time", float),
                                                 ("Float64_continuous_input", float)]))
    assert "validate" not in str(e.value), str(e.value)


def test_fmi_call_logger_receives_every_call_as_the_cli_logs_it(cli, tmpdir_private, caplog):
    lines = []
    level_before = rtcosim._lib.lib.rtcosim_log_get_level()
    with caplog.at_level(logging.DEBUG, logger="rtcosim"):
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=0.02, step_size=0.01,
                         fmi_call_logger=lines.append)
    # FMI 2.0 section 4.2.4: instantiate, set up, initialize, then per step
    # (outputs read at each communication point), terminate, free.
    functions = [line[:line.index("(")] for line in lines]
    assert functions == ["fmi2Instantiate", "fmi2SetupExperiment", "fmi2EnterInitializationMode",
                         "fmi2ExitInitializationMode", "fmi2GetReal", "fmi2DoStep", "fmi2GetReal",
                         "fmi2DoStep", "fmi2GetReal", "fmi2Terminate", "fmi2FreeInstance"]
    assert all(line.endswith("-> fmi2OK") for line in lines)
    assert "t=0, h=0.01" in lines[5] and "t=0.01, h=0.01" in lines[7]
    # The CLI's --log-fmi-calls lines, the same calls ("[debug] fmi: Dahlquist: ...");
    # Python sets the stop time as FMPy does, the CLI as fmusim with --set-stop-time.
    p = subprocess.run([cli, "simulate", fmu("Dahlquist-fmi2.fmu"), "--stop-time", "0.02",
                        "--step-size", "0.01", "--set-stop-time", "--log-fmi-calls", "-o",
                        os.path.join(tmpdir_private, "o.csv")], capture_output=True, text=True,
                       check=True)
    cli_calls = [line.split(": ", 2)[2] for line in p.stderr.splitlines() if "-> fmi2" in line]
    assert [c[:c.index("(")] for c in cli_calls] == functions
    assert cli_calls[1:] == lines[1:]  # the first names the FMU's own temporary directory
    # The call lines went to the callback only, and the log level is back.
    assert not any("fmi2DoStep" in m for m in caplog.messages)
    assert rtcosim._lib.lib.rtcosim_log_get_level() == level_before


def test_record_events_gives_rows_before_and_after_each_event(cli, tmpdir_private):
    """Events FMU (h0 = 5 m, g = -10 m/s2, e = 0.5, counter ticks every
    0.75 s): time events at 0.75 and 1.5 s (counter 0 -> 1 -> 2), impacts at
    t = sqrt(2 h0 / |g|) = 1 s (v -10 -> +5 m/s) and one flight of 2 v / |g|
    = 1 s later, at 2 s (v -5 -> +2.5 m/s). Each event is two rows at its
    time: before and after, as `simulate --event-mode-used` writes them."""
    r = rtcosim.simulate(fmu("Events-fmi3.fmu"), stop_time=2, record_events=True)
    events = {}
    for k in range(1, len(r)):
        if r["time"][k] == r["time"][k - 1]:
            events[r["time"][k]] = (r[k - 1], r[k])
    assert sorted(events) == [0.75, 1.0, 1.5, 2.0]
    assert (events[0.75][0]["counter"], events[0.75][1]["counter"]) == (0, 1)
    assert (events[1.5][0]["counter"], events[1.5][1]["counter"]) == (1, 2)
    assert (events[1.0][0]["v"], events[1.0][1]["v"]) == (-10.0, 5.0)
    assert (events[2.0][0]["v"], events[2.0][1]["v"]) == (-5.0, 2.5)
    out = os.path.join(tmpdir_private, "events.csv")
    subprocess.run([cli, "simulate", fmu("Events-fmi3.fmu"), "--stop-time", "2",
                    "--event-mode-used", "-o", out], check=True)
    assert_equals_cli_csv(r, out)
    # Without: one row per communication point only.
    plain = rtcosim.simulate(fmu("Events-fmi3.fmu"), stop_time=2)
    assert len(set(plain["time"])) == len(plain)
    # FMUs without Event Mode run as without.
    assert np.array_equal(rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1,
                                           record_events=True),
                          rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1))


def test_model_exchange_records_events_unless_told_not_to(cli, tmpdir_private):
    """BouncingBall (h0 = 1 m, g = -9.81, e = 0.7) through model exchange: the
    first impact at sqrt(2 / 9.81) = 0.45152 s, v = -sqrt(2 * 9.81) before it
    and 0.7 times that reversed after it, two rows at its time, as FMPy
    (record_events=True, its default) and fmusim write them; the CLI's file
    bit for bit. record_events=False: the output grid only."""
    r = rtcosim.simulate(fmu("BouncingBall-fmi2.fmu"), fmi_type="ModelExchange", stop_time=1)
    same = [k for k in range(1, len(r)) if r["time"][k] == r["time"][k - 1]]
    assert len(same) >= 1
    k = same[0]
    assert abs(r["time"][k] - (2 / 9.81) ** 0.5) < 1e-5
    assert abs(r["v"][k - 1] + (2 * 9.81) ** 0.5) < 1e-4
    assert abs(r["v"][k] - 0.7 * (2 * 9.81) ** 0.5) < 1e-4
    assert np.array_equal(rtcosim.simulate(fmu("BouncingBall-fmi2.fmu"), fmi_type="ModelExchange",
                                           stop_time=1, record_events=True), r)
    out = os.path.join(tmpdir_private, "me.csv")
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi2.fmu"), "--interface-type", "me",
                    "--stop-time", "1", "-o", out], check=True)
    assert_equals_cli_csv(r, out)
    grid = rtcosim.simulate(fmu("BouncingBall-fmi2.fmu"), fmi_type="ModelExchange", stop_time=1,
                            record_events=False)
    assert len(set(grid["time"])) == len(grid) == len(r) - 2 * len(same)


@pytest.mark.parametrize("call, words", [
    (lambda: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stoptime=1),
     ["simulate()", "'stoptime'", "did you mean 'stop_time'"]),
    (lambda: rtcosim.simulate_fmu(fmu("Dahlquist-fmi2.fmu"), step_sise=0.1, colour="red"),
     ["'step_sise'", "did you mean 'step_size'", "'colour'"]),
    (lambda: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), use_source_code=True),
     ["'use_source_code'", "FMPy's, not supported"]),
    (lambda: rtcosim.System(SSD).run(stepsize=1e-3), ["System.run()", "did you mean 'step_size'"]),
    (lambda: rtcosim.System(SSD).run_real_time(estimator_map={}),
     ["run_real_time()", "'estimator_map'"]),
    (lambda: rtcosim.plot_result(np.zeros(1, dtype=[("time", float)]), reference=None),
     ["plot_result()", "'reference'", "FMPy's, not supported"]),
    (lambda: rtcosim.write_result(np.zeros(1, dtype=[("time", float)]), "r.csv", units=True),
     ["write_result()", "'units'", "did you mean 'csv_units'"]),
    # Times after the file name are keywords only: an old positional call
    # (start, stop) fails instead of meaning (validate, start_time).
    (lambda: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), 0, 1), ["positional"]),
])
def test_unknown_keywords_are_named_with_a_suggestion(call, words):
    with pytest.raises(TypeError) as e:
        call()
    for w in words:
        assert w in str(e.value), str(e.value)


@pytest.mark.parametrize("run", [
    lambda cb: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, output_interval=0.001,
                                progress=cb),
    lambda cb: rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=1, output_interval=0.001,
                                step_finished=lambda t, r: True, progress=cb),
    lambda cb: rtcosim.System(SSD).run(stop_time=1, step_size=0.001, progress=cb),
])
def test_progress_is_reported_once_per_percent(run):
    """1000 steps of 1 ms to 1 s: percent k is reached at step 10 k, so the
    callback runs exactly 100 times, at 0.01, 0.02, ..., 1.0 (once at 100 %)."""
    calls = []
    run(lambda fraction, time: calls.append((fraction, time)))
    assert len(calls) == 100
    assert [round(f * 100) for f, _ in calls] == list(range(1, 101))
    assert [f for f, _ in calls].count(1.0) == 1 and calls[-1] == (1.0, 1.0)
    assert [t for _, t in calls] == pytest.approx([k / 100 for k in range(1, 101)])


def test_statistics_keys_carry_their_units():
    system = rtcosim.System(SSD)
    system.run(stop_time=0.1, step_size=1e-3)
    s = system.statistics
    assert s["steps"] == 100 and s["end_time_s"] == pytest.approx(0.1) and s["wall_time_s"] > 0
    _, stats = system.run_real_time(stop_time=0.05, step_size=1e-3, virtual_clock=True,
                                    calibrate=False)
    for key in ("drift_us", "slip_us", "max_lag_s", "end_time_s", "wall_time_s",
                "calibration_worst_us", "nonrealtime_compute_mean_us"):
        assert key in stats
    assert "drift" not in stats and "end_time" not in stats
    # The documented keys of earlier versions answer in seconds, with a warning.
    with pytest.warns(DeprecationWarning, match="drift_us"):
        assert stats["drift"] == stats["drift_us"] * 1e-6
    with pytest.warns(DeprecationWarning, match="end_time_s"):
        assert stats["end_time"] == stats["end_time_s"] == pytest.approx(0.05)
    with pytest.raises(KeyError):
        stats["no_such_figure"]


def test_results_carry_units_and_descriptions():
    r = rtcosim.simulate(fmu("BouncingBall-fmi3.fmu"), stop_time=1, output=["h", "v", "g"])
    assert r.units == {"time": "s", "h": "m", "v": "m/s", "g": "m/s2"}
    assert r.descriptions["h"].startswith("Height of the ball")
    assert r.parameters == {"g"}
    assert type(r["h"]) is np.ndarray  # a field is a plain array
    assert r[1:3].units == r.units
    s = rtcosim.System(SSD).run(stop_time=0.01)
    assert s.units["mass1.x"] == "m" and s.units["mass2.F"] == "N"


def test_fmu_state_and_set_stop_time_as_fmpy(cli, tmpdir_private):
    """fmu_state (FMPy's): the serialized state the CLI saved at 1 s, as bytes
    or as the file, continues the run to 2 s with the rows of one run from 0
    to 2 s; set_stop_time=False leaves the stop time out of
    fmi2SetupExperiment (stopTimeDefined=0), as the CLI without
    --set-stop-time."""
    state = os.path.join(tmpdir_private, "s.bin")
    subprocess.run([cli, "simulate", fmu("Dahlquist-fmi2.fmu"), "--stop-time", "1",
                    "--output-interval", "0.25", "--final-fmu-state-file", state, "-q", "-o",
                    os.path.join(tmpdir_private, "a.csv")], check=True)
    whole = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=2, output_interval=0.25)
    with open(state, "rb") as f:
        data = f.read()
    for given in (data, state):
        rest = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), start_time=1, stop_time=2,
                                output_interval=0.25, fmu_state=given)
        assert rest.tolist() == whole[whole["time"] >= 1].tolist()
    assert sorted(os.listdir(tmpdir_private)) == ["a.csv", "s.bin"]
    lines = []
    rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=0.02, step_size=0.01,
                     set_stop_time=False, fmi_call_logger=lines.append)
    assert "stopTimeDefined=0" in lines[1], lines[1]
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), fmu_state=b"not a state")
    assert "fmi2DeSerializeFMUstate" in str(e.value) or "DeserializeFMUState" in str(e.value)


def test_fmu_state_continues_model_exchange(cli, tmpdir_private):
    """fmu_state with fmi_type='ModelExchange': the FMU's own state the CLI
    saved at 1 s from a model-exchange run with explicit Euler continues it
    with the rows of one run from 0 to 2 s, bounces included."""
    state = os.path.join(tmpdir_private, "me.bin")
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "--interface-type", "me",
                    "--solver", "euler", "--stop-time", "1", "--output-interval", "0.05",
                    "--final-fmu-state-file", state, "-q", "-o",
                    os.path.join(tmpdir_private, "a.csv")], check=True)
    whole = rtcosim.simulate(fmu("BouncingBall-fmi3.fmu"), fmi_type="ModelExchange",
                             solver="Euler", stop_time=2, output_interval=0.05)
    rest = rtcosim.simulate(fmu("BouncingBall-fmi3.fmu"), fmi_type="ModelExchange",
                            solver="Euler", start_time=1, stop_time=2, output_interval=0.05,
                            fmu_state=state)
    tail = whole[whole["time"] >= 1]
    assert len(rest) == len(tail) > 21
    assert rest.tolist() == tail.tolist()

