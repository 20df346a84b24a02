"""Commands stopped by a signal keep what they computed and leave no half
file (the signal audit of session 35): `anytime` writes the records of the
periods it ran; `plot` writes OUT.part and renames it whole, so Ctrl-C leaves
the previous image and no part file; `events` takes SIGHUP as SIGTERM (a
closed terminal) and writes its CAN log whole."""
import csv
import os
import signal
import subprocess
import time

from conftest import fmu


def _wait_for(predicate, limit=30.0):
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < limit, "waited too long"
        time.sleep(0.002)


def test_anytime_writes_the_periods_it_ran(cli, tmpdir_private):
    out = os.path.join(tmpdir_private, "a.csv")
    p = subprocess.Popen([cli, "anytime", fmu("Dahlquist-fmi3.fmu"), "--duration", "60",
                          "--virtual", "-o", out],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    ran = int(stderr.split("after ")[1].split(" of")[0])
    assert stderr.startswith("rtcosim: anytime: ended by SIGINT after ")
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert len(rows) == ran + 1  # the header and one row per period run
    period = 0.001  # the default; a record's time is its period's start
    assert float(rows[1][0]) == 0 and float(rows[-1][0]) == round((ran - 1) * period, 9)
    assert "records: " + out in stdout


def test_plot_interrupted_leaves_the_previous_image(cli, tmpdir_private):
    data = os.path.join(tmpdir_private, "big.csv")
    subprocess.run([cli, "simulate", fmu("BouncingBall-fmi3.fmu"), "--stop-time", "20000",
                    "--output-interval", "0.01", "-o", data], check=True,
                   stdout=subprocess.DEVNULL)
    out = os.path.join(tmpdir_private, "q.svg")
    with open(out, "w") as f:
        f.write("previous\n")
    p = subprocess.Popen([cli, "plot", data, "-o", out], stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: os.path.exists(out + ".part") or p.poll() is not None)
    p.send_signal(signal.SIGINT)
    _, stderr = p.communicate(timeout=60)
    assert not os.path.exists(out + ".part")
    whole = "rtcosim: plot: ended by SIGINT after %s was written whole\n" % out
    # it finished first: the new image, whole (a signal after the handlers were put back
    # at the end ends the process as any program's)
    if p.returncode in (0, -signal.SIGINT) or stderr == whole:
        assert p.returncode in (0, 130, -signal.SIGINT)
        with open(out) as f:
            assert f.read().rstrip().endswith("</svg>")
        return
    assert p.returncode == 130
    assert stderr == "rtcosim: plot: ended by SIGINT before its file was complete: nothing written\n"
    with open(out) as f:
        assert f.read() == "previous\n"


def test_events_takes_sighup_and_writes_its_log_whole(cli, tmpdir_private):
    log = os.path.join(tmpdir_private, "e.asc")
    p = subprocess.Popen([cli, "events", "--stop-time", "100000", "-q", "-o", log],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGHUP)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 128 + signal.SIGHUP, stderr
    with open(log) as f:
        text = f.read()
    assert text.rstrip().endswith("End TriggerBlock")  # a whole Vector ASC file
    info = subprocess.run([cli, "info", log], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
