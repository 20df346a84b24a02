"""Per-signal estimators from Python (run_real_time(estimators={signal:
spec}), as `run --real-time --estimator SIGNAL=SPEC`) on virtual clocks,
with estimates worked out by hand from the values the partner sent.

Three masses (the oscillator's mass1 model) at H = 1 ms: a and c paced, b
the non-real-time part, b.x feeding a.F and b.v feeding c.F. b's step 4
(stamp 3 ms) takes 2.5 ms (inject_delays schedule): it ends at 5.5 ms, so
frames te = 4 and 5 ms miss their data (lag 1 and 2 ms) and use estimates;
from 6 ms the partner is back in time. Until the estimates, the run equals
the plain Jacobi run, whose values b_x[k], b_v[k] at k ms are the data."""
import os

import pytest

import rtcosim

SSD = """<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="three"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:rc="https://rtcosim.org/SSP1/Master">
  <ssd:System name="three">
    <ssd:Elements>
      <ssd:Component name="a" source="rtcosim:oscillator.mass1"/>
      <ssd:Component name="b" source="rtcosim:oscillator.mass1"/>
      <ssd:Component name="c" source="rtcosim:oscillator.mass1"/>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="a" startConnector="x" endElement="b" endConnector="F">
        <ssc:LinearTransformation factor="-20" offset="0.5"/>
      </ssd:Connection>
      <ssd:Connection startElement="b" startConnector="x" endElement="a" endConnector="F">
        <ssc:LinearTransformation factor="-5"/>
      </ssd:Connection>
      <ssd:Connection startElement="b" startConnector="v" endElement="c" endConnector="F">
        <ssc:LinearTransformation factor="2"/>
      </ssd:Connection>
    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="org.rtcosim.master">
        <rc:Master stepSize="0.001" order="jacobi" coupling="zoh" correction="none"/>
      </ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="0.01"/>
</ssd:SystemStructureDescription>
"""
LATE = {"b": "schedule=0/0/0/0.0025/0/0/0/0/0/0"}


@pytest.fixture
def system(tmpdir_private):
    path = os.path.join(tmpdir_private, "three.ssd")
    with open(path, "w") as f:
        f.write(SSD)
    return rtcosim.System(path)


def run(system, **kwargs):
    r, stats = system.run_real_time(virtual_clock=True, calibrate=False, non_realtime="b",
                                    inject_delays=LATE, **kwargs)
    assert stats["estimated_exchanges"] == 2 and stats["max_lag_s"] == pytest.approx(0.002)
    return {round(t * 1000): row for t, row in zip(r["time"], r)}


def test_each_signal_gets_its_own_estimator(system):
    plain = system.run()
    b_x, b_v = plain["b.x"], plain["b.v"]
    # Default ZOH for every signal: both hold their value of 3 ms.
    rows = run(system, estimator="zoh")
    for ms in (4, 5):
        assert rows[ms]["b.x"] == b_x[3] and rows[ms]["b.v"] == b_v[3]
    for ms in (1, 2, 3):
        assert rows[ms]["b.x"] == b_x[ms] and rows[ms]["b.v"] == b_v[ms]
    # b.x by FOH through (2 ms, b_x[2]) and (3 ms, b_x[3]); b.v keeps the default.
    rows = run(system, estimator="zoh", estimators={"b.x": "foh"})
    slope = b_x[3] - b_x[2]  # per ms
    assert rows[4]["b.x"] == pytest.approx(b_x[3] + slope, rel=1e-14)
    assert rows[5]["b.x"] == pytest.approx(b_x[3] + 2 * slope, rel=1e-14)
    assert rows[4]["b.v"] == b_v[3] and rows[5]["b.v"] == b_v[3]
    # And the other way round, b.v by FOH.
    rows = run(system, estimators={"b.v": "foh"})
    assert rows[5]["b.v"] == pytest.approx(b_v[3] + 2 * (b_v[3] - b_v[2]), rel=1e-14)
    assert rows[5]["b.x"] == b_x[3]


def test_per_signal_limits(system):
    """FOH limited to 50 m/s from the last value handed out: 0.05 m per
    frame (the FOH slope is about 100 m/s), so b_x[3] + 0.05, then + 0.1;
    b.v clamped to at most 99.95 m/s (it was 99.991 at 3 ms)."""
    b_x, b_v = system.run()["b.x"], system.run()["b.v"]
    rows = run(system, estimators={"b.x": "foh,rate=50", "b.v": "zoh,max=99.95"})
    assert rows[4]["b.x"] == pytest.approx(b_x[3] + 0.05, rel=1e-13)
    assert rows[5]["b.x"] == pytest.approx(b_x[3] + 0.10, rel=1e-13)
    assert b_v[3] > 99.95 and rows[4]["b.v"] == rows[5]["b.v"] == 99.95


@pytest.mark.parametrize("kwargs, words", [
    (dict(non_realtime="b", estimators={"nosuch.y": "zoh"}), ["nosuch.y", "no such signal"]),
    (dict(non_realtime="b", estimators={"b.x": "cubic"}), ["cubic"]),
    (dict(non_realtime="b", estimators={"b.x": "zoh", "b.v": "linear:b.v"}),
     ["own linear input"]),
    (dict(estimators={"b.x": "foh"}), ["per-signal estimators need a non-real-time part"]),
    (dict(non_realtime="b", inject_delays={"b": "sometimes"}), ["inject-delay", "sometimes"]),
    (dict(non_realtime="b", estimators=["b.x"]), ["estimators"]),
])
def test_bad_estimators_are_named_before_the_run(system, kwargs, words):
    with pytest.raises(rtcosim.Error) as e:
        system.run_real_time(virtual_clock=True, calibrate=False, **kwargs)
    for w in words:
        assert w in str(e.value), str(e.value)
    assert "\n" not in str(e.value)
