"""The CLI's progress line end to end: drawn on a terminal (a pty as
standard error), erased before the summary, absent with --quiet and when
standard error is a pipe."""
import os
import re
import pty
import subprocess

import pytest

from conftest import fmu, source


def run_with_stderr_on_pty(args):
    master, slave = pty.openpty()
    try:
        p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=slave, timeout=120)
        os.close(slave)
        slave = None
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the pty's other end is closed and drained
                break
            if not data:
                break
            chunks.append(data)
        return p.returncode, b"".join(chunks).decode()
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)


@pytest.mark.parametrize("command", [
    lambda out: ["simulate", fmu("Dahlquist-fmi2.fmu"), "--stop-time", "1", "--output-file", out],
    lambda out: ["run", source("examples", "oscillator", "oscillator.ssd"), "--stop-time", "0.5",
                 "--output-file", out],
    lambda out: ["events", "--stop-time", "2", "--can-log", out],
    lambda out: ["run", source("examples", "oscillator", "oscillator.ssd"), "--stop-time", "0.5",
                 "--real-time", "--virtual-clock", "--output-file", out],
])
def test_progress_line_on_a_terminal_only(cli, tmpdir_private, command):
    out = os.path.join(tmpdir_private, "out.csv")
    rc, text = run_with_stderr_on_pty([cli] + command(out))
    assert rc == 0
    # Drawn at once (the first update), as "PERCENT %  t = T s  speed Sx  ETA M:SS".
    assert re.search(r"\r *\d+\.\d %  t = [0-9.e-]+ s( +speed [0-9.e+-]+x +ETA \d+:\d\d)?\x1b\[K",
                     text), text
    assert text.startswith("\r") and text.endswith("\r\x1b[K")  # and erased at the end
    rc, text = run_with_stderr_on_pty([cli] + command(out) + ["--quiet"])
    assert rc == 0 and text == ""
    p = subprocess.run([cli] + command(out), capture_output=True, text=True)
    assert p.returncode == 0 and "%" not in p.stderr and "\r" not in p.stderr
