"""CAN logs written by `rtcosim events --can-log` read back by python-can's
readers (Debian python3-can): CanutilsLogReader for candump -l, ASCReader
for Vector ASC. Truth: the candump text parsed by a strict pattern of the
format, and the frame count the run reports."""
import os
import re
import subprocess

import can
import pytest

LINE = re.compile(r"^\((\d{10})\.(\d{6})\) can0 ([0-9A-F]{3}|[0-9A-F]{8})#((?:[0-9A-F]{2}){0,8})$")


@pytest.fixture
def logs(cli, tmpdir_private):
    paths = {}
    for ext in ("log", "asc"):
        paths[ext] = os.path.join(tmpdir_private, "can." + ext)
        out = subprocess.run([cli, "events", "--stop-time", "0.2", "--can-log", paths[ext]],
                             check=True, capture_output=True, text=True).stdout
    frames = int(re.search(r"can bus\s+(\d+) frames", out).group(1))
    assert frames > 20
    expected = []
    with open(paths["log"]) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            assert m, f"not candump -l: {line!r}"
            expected.append((int(m.group(1)) * 1_000_000 + int(m.group(2)), int(m.group(3), 16),
                             len(m.group(3)) == 8, bytes.fromhex(m.group(4))))
    assert len(expected) == frames
    return paths, expected


def as_tuples(messages):
    return [(round(m.timestamp * 1e6), m.arbitration_id, m.is_extended_id, bytes(m.data))
            for m in messages]


def test_canutils_log_reader_reads_every_frame(logs):
    paths, expected = logs
    messages = list(can.CanutilsLogReader(paths["log"]))
    assert as_tuples(messages) == expected
    assert all(m.channel == "can0" and not m.is_error_frame for m in messages)


def test_asc_reader_reads_every_frame(logs):
    paths, expected = logs
    messages = list(can.ASCReader(paths["asc"], relative_timestamp=True))
    assert as_tuples(messages) == expected
    assert all(m.dlc == len(m.data) and not m.is_remote_frame for m in messages)
