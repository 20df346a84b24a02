"""Ending Python runs early without losing anything (issue 27): Ctrl-C
(SIGINT) during rtcosim.simulate raises KeyboardInterrupt within a step and
returns nothing as if complete, with or without callbacks; a step_finished
that raises leaves no memory behind; arguments are checked on the Python side
and named as the Python keywords."""
import math
import os
import re
import signal
import threading
import time

import pytest

import rtcosim
from conftest import fmu, source

# Dahlquist with 1 ms steps to 1e6 s: 1e9 steps, hours on any machine; one
# recorded row (record_every) so that memory stays small.
LONG_RUN = dict(stop_time=1e6, output_interval=1e-3, record_every=10**9)


@pytest.mark.parametrize("callbacks", [
    {},
    {"progress": lambda fraction, time: True},
    {"step_finished": lambda time, recorder: True},
], ids=["no-callback", "progress", "step_finished"])
def test_ctrl_c_raises_keyboard_interrupt_within_a_step(callbacks):
    box = {"result": "nothing"}

    def run():
        box["result"] = rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), **LONG_RUN, **callbacks)
    _interrupted(run, 0.3)
    assert box["result"] == "nothing"  # no table came back


def _interrupted(run, after):
    """run() with a SIGINT after `after` s: KeyboardInterrupt within 3 s of
    it (a step takes microseconds; seconds of slack for a loaded machine),
    and the run ended."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    timer = threading.Timer(after, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
        waited = time.monotonic() - sent[0]
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert waited < 3.0, f"KeyboardInterrupt {waited:.2f} s after SIGINT"
    _assert_the_run_ended()


def _assert_the_run_ended():
    """No run goes on behind the caller (CPython 3.11's Thread.join,
    interrupted, returned at once with the run still going)."""
    running = [t.name for t in threading.enumerate() if t.name == "rtcosim-run"]
    assert not running, "the run goes on after the exception"


SPRINGS = source("tests", "rtrun", "springs.ssd")


class _Alarm(Exception):
    pass


@pytest.mark.parametrize("run", [
    lambda: rtcosim.System(SPRINGS).run(stop_time=1e6, step_size=1e-4, output_interval=1e3),
    lambda: rtcosim.System(SPRINGS).run_real_time(stop_time=100, step_size=1e-3),
], ids=["system", "system-real-time"])
def test_ctrl_c_ends_a_system_run(run):
    """System.run and run_real_time: KeyboardInterrupt within a macro step
    (a frame), the run ended (a real-time run used to lose the interrupt in a
    log callback and run to its end)."""
    _interrupted(run, 0.5)


def test_any_exception_raised_meanwhile_ends_the_run():
    """An exception from a signal handler (here SIGALRM's) while simulate
    waits ends the run as Ctrl-C does; it used to go on in the background."""
    def raise_alarm(signum, frame):
        raise _Alarm()
    previous = signal.signal(signal.SIGALRM, raise_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(_Alarm):
            rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), **LONG_RUN)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    _assert_the_run_ended()


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="ASan's quarantine keeps freed memory: RSS is no measure there")
def test_raising_step_finished_leaves_no_memory_behind():
    def boom(time, recorder):
        if time >= 5:
            raise ValueError("from step_finished")

    def call():
        with pytest.raises(ValueError):
            # 10 s at 0.1 ms: the rows of 5 s (50 000 rows, ~1.7 MB) exist when it raises
            rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=10, output_interval=1e-4,
                             step_finished=boom)
    for _ in range(5):
        call()
    before = _rss_bytes()
    for _ in range(100):
        call()
    grown = _rss_bytes() - before
    # the rows of 100 runs (~170 MB) if they were lost
    assert grown < 20 * 2**20, f"grew by {grown / 2**20:.1f} MiB over 100 calls"


@pytest.mark.parametrize("kwargs, words", [
    ({"output_interval": 1e-300}, "output_interval: 1e-300 s is below the time resolution"),
    ({"output_interval": -1.0}, "output_interval: -1.0 is not a positive number"),
    ({"record_every": 2.5}, "record_every: 2.5 is not a whole number >= 1"),
    ({"record_every": 0}, "record_every: 0 is not a whole number >= 1"),
    ({"record_every": 2**32}, "record_every: 4294967296 is above 4294967295"),
    ({"step_size": "0"}, "step_size: '0' is not a positive number of seconds"),
    ({"step_size": 1e300}, "step_size: 1e+300 s is beyond the time range"),
    ({"start_time": b"x"}, "start_time: 'x' is not a number of seconds"),
    ({"relative_tolerance": -1e-6}, "relative_tolerance: -1e-06 is not a finite number > 0"),
    ({"relative_tolerance": math.nan}, "relative_tolerance: nan is not a finite number > 0"),
])
def test_simulate_arguments_are_checked_by_their_python_names(kwargs, words):
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.simulate(fmu("Dahlquist-fmi2.fmu"), stop_time=0.1, **kwargs)
    assert e.value.status == "EINVAL"
    assert str(e.value).startswith(words), str(e.value)


def test_system_arguments_are_checked_by_their_python_names():
    from conftest import source
    s = rtcosim.System(source("tests", "rtrun", "springs.ssd"))
    cases = [(lambda: s.run_real_time(stop_time=0.01, virtual_clock=True, rt_factor=-1),
              "rt_factor: -1 is not a finite number > 0 and <= 1e+06"),
             (lambda: s.run_real_time(stop_time=0.01, virtual_clock=True, partner_timeout=-1),
              "partner_timeout: -1 is not"),
             (lambda: s.run(stop_time=0.01, threads=2.5), "threads: 2.5 is not a whole number"),
             (lambda: s.run(stop_time=0.01, threads=2**40), "threads: 1099511627776 is above 256"),
             (lambda: s.run(stop_time=0.01, step_size=1e-300), "step_size: 1e-300 s is below")]
    for call, words in cases:
        with pytest.raises(rtcosim.Error) as e:
            call()
        assert str(e.value).startswith(words), str(e.value)
        assert "--" not in str(e.value)  # no CLI option names
    for real_time in (False, True):
        with pytest.raises(rtcosim.Error) as e:
            if real_time:
                s.run_real_time(stop_time=0.01, virtual_clock=True, start_values={"a.nope": 1})
            else:
                s.run(stop_time=0.01, start_values={"a.nope": 1})
        assert str(e.value).count("start value") == 1, str(e.value)
        assert "'nope'" in str(e.value)


def test_one_name_alone_and_bytes_paths(tmpdir_private):
    """output='x' is the variable x, not the characters of its name, and a
    path may be bytes everywhere (os.fsencode's), as it may be a str."""
    d = fmu("Dahlquist-fmi2.fmu")
    r = rtcosim.simulate(os.fsencode(d), stop_time=1, output="x")
    assert r.dtype.names == ("time", "x")
    path = os.fsencode(os.path.join(tmpdir_private, "r.csv"))
    rtcosim.write_result(r, path)
    back = rtcosim.read_result(path, variables="x")
    assert list(back["x"]) == list(r["x"])
    assert rtcosim.compare_results(path, path)
    s = rtcosim.System(os.fsencode(source("tests", "rtrun", "springs.ssd")))
    assert s.run(stop_time=0.01, output="a.x").dtype.names == ("time", "a.x")


@pytest.mark.parametrize("times, words", [
    ([0.0, math.nan], "write_result: time nan in row 1 is not a finite number"),
    ([0.0, 1e300], "write_result: time 1e+300 in row 1 is not a finite number"),
    ([0.0, 2.0, 1.0], "write_result: time decreases in row 2 (1.0 s after 2.0 s)"),
    ([0.0, 1e-10], "write_result: rows 0 and 1 (0.0 and 1e-10 s) are the same time"),
])
def test_write_result_refuses_times_it_cannot_write(times, words, tmpdir_private):
    import numpy as np
    r = np.zeros(len(times), dtype=[("time", float), ("x", float)])
    r["time"] = times
    path = os.path.join(tmpdir_private, "r.csv")
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.write_result(r, path)
    assert str(e.value).startswith(words), str(e.value)
    assert not os.path.exists(path)
    r["time"] = [0.0, 0.0, 1.0][:len(times)]  # an event's two rows: fine
    rtcosim.write_result(r, path)


def test_runs_on_two_threads_each_get_their_own_log():
    """fmi_call_logger on two threads at once: each gets exactly its own
    run's calls (a run of 200 steps and one of 50: as many as each gets
    alone; they used to cross over), and the library's level is back where
    it was after both (it was left at debug)."""
    import rtcosim._lib as raw
    before = raw.lib.rtcosim_log_get_level()
    stops = {"Dahlquist-fmi2.fmu": 0.2, "BouncingBall-fmi2.fmu": 0.05}

    def calls_of(name, out):
        def run():
            got = []
            rtcosim.simulate(fmu(name), stop_time=stops[name], output_interval=0.001,
                             fmi_call_logger=got.append)
            # (each run unpacks the FMU into a directory of its own)
            out.extend(re.sub(r"rtcosim-fmu-\w+", "DIR", line) for line in got)
        return run
    alone = {}
    for name in stops:
        alone[name] = []
        calls_of(name, alone[name])()
    assert len(alone["Dahlquist-fmi2.fmu"]) > len(alone["BouncingBall-fmi2.fmu"]) > 50
    for _ in range(3):
        results = {name: [] for name in stops}
        threads = [threading.Thread(target=calls_of(n, results[n])) for n in stops]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == alone
    assert raw.lib.rtcosim_log_get_level() == before


def test_write_result_refuses_no_rows(tmpdir_private):
    import numpy as np
    path = os.path.join(tmpdir_private, "r.mat")
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.write_result(np.zeros(0, dtype=[("time", float), ("x", float)]), path)
    assert str(e.value).startswith("write_result: no rows to write to "), str(e.value)
    assert not os.path.exists(path)
