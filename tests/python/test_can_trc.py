"""PEAK TRC traces against python-can 4.1 (Debian python3-can) as the other
side: frames python-can's TRCWriter writes (versions 2.1 and 1.0) read by
`rtcosim info`, `rtcosim can convert` and rtcosim.read_can_log with the same
ids, data and times (to the microsecond, from the first frame); and TRC 2.1
files rtcosim writes (`rtcosim can convert` of a candump log with classic
and CAN FD frames, `rtcosim events -o x.trc`) read by python-can's TRCReader
with the same ids, data, flags and times.

What python-can 4.1 cannot do, so not tested against it:
- its TRCWriter refuses CAN FD, remote and error frames (a warning, the
  frame left out), writes classic frames only, on bus 1, and its STARTTIME is
  no date (datetime.now() plus the first frame's timestamp, written as
  "DAYS.MILLISECONDS-OF-THE-DAY" where a fraction of a day belongs): only
  times from the first frame are comparable;
- its TRCReader reads versions 1.0, 1.1 and 2.1 only, by fixed column
  positions (it ignores ;$COLUMNS), and of 2.1 only DT lines: the FD, FB,
  FE, BI and RR lines rtcosim writes are read over ("Unsupported type"), so
  the CAN FD frames of rtcosim's files are checked here against the spec's
  2.1 line layout instead (a strict pattern: type, bus 1, 4/8 hex digit id,
  Rx, reserved '-', DLC, as many bytes as the DLC says).
"""
import os
import random
import re
import subprocess

import pytest

can = pytest.importorskip("can")
rtcosim = pytest.importorskip("rtcosim")
from can.io.trc import TRCFileVersion  # noqa: E402

FD_LENGTH = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64]


def python_can_frames(unit, n=40, seed=7):
    """(timestamp us, id, extended, data): standard and extended ids, 0 to 8
    bytes, times a random number of units (us) apart."""
    rnd = random.Random(seed)
    us = 1_700_000_000_000_000
    frames = []
    for _ in range(n):
        us += rnd.randrange(1, 50) * unit
        extended = rnd.random() < 0.4
        can_id = rnd.randrange(0x20000000 if extended else 0x800)
        frames.append((us, can_id, extended, bytes(rnd.randrange(256) for _ in range(rnd.randrange(9)))))
    # and an extended id of few digits ("0000100"), the largest of each kind
    frames += [(us + unit, 0x100, True, b"\x01"), (us + 2 * unit, 0x7FF, False, b""),
               (us + 3 * unit, 0x1FFFFFFF, True, bytes(8))]
    return frames


def write_python_can(path, frames, version):
    writer = can.TRCWriter(path)
    writer.file_version = version
    for us, can_id, extended, data in frames:
        writer.on_message_received(can.Message(timestamp=us / 1e6, arbitration_id=can_id,
                                               is_extended_id=extended, data=data))
    writer.stop()


def relative_us(log):
    return [round((t - log["time"][0]) * 1e6) for t in log["time"]]


@pytest.mark.parametrize("version", ["2.1", "1.0"])
def test_rtcosim_reads_python_can_trc_writer_files(cli, tmpdir_private, version):
    # times to the microsecond in 2.1 (random gaps of 1 to 49 us x 997);
    # version 1.0 counts whole milliseconds (gaps of whole ms)
    frames = python_can_frames(997 if version == "2.1" else 1000)
    path = os.path.join(tmpdir_private, "python-can.trc")
    write_python_can(path, frames, TRCFileVersion.V2_1 if version == "2.1" else TRCFileVersion.V1_0)
    with open(path, newline="") as f:
        text = f.read()
    assert ("$FILEVERSION=2.1" in text) == (version == "2.1")
    # python-can writes extended ids below 0x10000000 with 7 hex digits
    assert any(ext and can_id < 0x10000000 for _, can_id, ext, _ in frames)
    first = frames[0][0]
    expected_us = [us - first for us, *_ in frames]

    # exact through the C reader: `can convert` to candump -l (integer us)
    dump = os.path.join(tmpdir_private, "python-can.log")
    subprocess.run([cli, "can", "convert", path, dump], check=True, capture_output=True)
    with open(dump) as f:
        us = [int(line[1:11]) * 1_000_000 + int(line[12:18]) for line in f]
    assert [u - us[0] for u in us] == expected_us

    # read_can_log's times are float64 seconds since 1970 (python-can's
    # STARTTIME puts them past 2080: steps of 0.48 us), so within 1 us
    log = rtcosim.read_can_log(path)
    assert len(log) == len(frames)
    assert log.buses == ["can0"]
    assert all(abs(a - b) <= 1 for a, b in zip(relative_us(log), expected_us))
    for rec, (_, can_id, extended, data) in zip(log, frames):
        assert (int(rec["id"]), bool(rec["extended"]), int(rec["dlc"])) == (can_id, extended, len(data))
        assert bytes(rec["data"][:rec["dlc"]]) == data
        assert not rec["remote"] and not rec["fd"]

    out = subprocess.run([cli, "info", path], check=True, capture_output=True, text=True).stdout
    assert "(PEAK TRC)" in out
    assert re.search(rf"frames\s+{len(frames)} on 1 bus: can0", out)
    span = re.search(r"time\s+\S+ s to \S+ s \((\S+) s\)", out).group(1)
    assert span == "%.6f" % (expected_us[-1] / 1e6)

    # and python-can reads its own file the same (the times it gives are
    # offsets from the trace's start)
    theirs = list(can.TRCReader(path))
    assert [(round(m.timestamp * 1e6) - round(theirs[0].timestamp * 1e6), m.arbitration_id,
             m.is_extended_id, bytes(m.data)) for m in theirs] == \
        [(t, f[1], f[2], f[3]) for t, f in zip(expected_us, frames)]


CANDUMP = ("(1700000000.000100) can0 123#1122\n"
           "(1700000000.001250) can0 18FEF100#0102030405060708\n"
           "(1700000000.002000) can0 456##0\n"
           "(1700000000.002500) can0 457##1" + "AB" * 12 + "\n"
           "(1700000000.003333) can0 1ABCDE0F##2" + "CD" * 32 + "\n"
           "(1700000000.004000) can0 0C8##3" + "".join("%02X" % i for i in range(64)) + "\n"
           "(1700000000.004001) can0 7FF#\n"
           "(1700000001.500000) can0 000#FFFFFFFFFFFFFFFF\n")

LINE = re.compile(r"^ *(\d+) +(-?\d+\.\d{3}) (DT|FD|FB|FE|BI|RR) 1  ([0-9A-F]{8}| {4}[0-9A-F]{4}) "
                  r"Rx -  (\d+)((?: +[0-9A-F]{2})*)$")


def parse_trc_21(path):
    """The message lines of a TRC 2.1 file as the spec lays them out:
    (offset us, type, id, extended, DLC, data); every line ends CR LF."""
    with open(path, "rb") as f:
        raw = f.read().decode("ascii")
    lines = raw.split("\r\n")
    assert lines[-1] == "" and "\n" not in "".join(lines)
    assert lines[:3] == [";$FILEVERSION=2.1", lines[1], ";$COLUMNS=N,O,T,B,I,d,R,L,D"]
    assert re.fullmatch(r";\$STARTTIME=\d+\.\d{10}", lines[1])
    out = []
    for line in lines[:-1]:
        if line.startswith(";"):
            continue
        m = LINE.match(line)
        assert m, f"not a TRC 2.1 message line: {line!r}"
        ms, frac = m.group(2).split(".")
        data = bytes.fromhex(m.group(6).replace(" ", ""))
        dlc = int(m.group(5))
        assert len(data) == (FD_LENGTH[dlc] if m.group(3) not in ("DT", "RR") else min(dlc, 8))
        out.append((int(ms) * 1000 + int(frac), m.group(3), int(m.group(4), 16),
                    len(m.group(4).strip()) == 8, dlc, data))
    return out


def test_python_can_reads_rtcosim_trc_files(cli, tmpdir_private):
    """`rtcosim can convert` of a candump log of classic and CAN FD frames
    (no flags, BRS, ESI, both; 12, 32 and 64 bytes) to TRC 2.1: python-can's
    TRCReader gives its classic frames (ids, data, DLC, bus 1, Rx, times from
    the first frame to the us); the FD lines, which it reads over, match the
    spec's layout with the candump frames' flags, DLCs and bytes; and rtcosim
    reads the file back to the candump log, byte for byte."""
    src = os.path.join(tmpdir_private, "in.log")
    with open(src, "w") as f:
        f.write(CANDUMP)
    trc = os.path.join(tmpdir_private, "out.trc")
    run = subprocess.run([cli, "can", "convert", src, trc], check=True, capture_output=True, text=True)
    assert "converted 8 frames of can0" in run.stdout and "(PEAK TRC)" in run.stdout

    candump = []
    for line in CANDUMP.splitlines():
        m = re.match(r"\((\d+)\.(\d{6})\) can0 ([0-9A-F]+)#(#([0-9A-F]))?([0-9A-F]*)$", line)
        candump.append((int(m.group(1)) * 1_000_000 + int(m.group(2)), int(m.group(3), 16),
                        len(m.group(3)) == 8, m.group(5), bytes.fromhex(m.group(6))))
    first = candump[0][0]

    lines = parse_trc_21(trc)
    types = {None: "DT", "0": "FD", "1": "FB", "2": "FE", "3": "BI"}
    # the trace starts at the first frame's time down to a multiple of 216 us
    assert 0 <= lines[0][0] < 216
    assert [(off - lines[0][0], typ, can_id, ext, FD_LENGTH[dlc] if typ != "DT" else dlc, data)
            for off, typ, can_id, ext, dlc, data in lines] == \
        [(us - first, types[flags], can_id, ext, len(data), data)
         for us, can_id, ext, flags, data in candump]

    classic = [c for c in candump if c[3] is None]
    theirs = list(can.TRCReader(trc))
    assert len(theirs) == len(classic) == 4
    t0 = round(theirs[0].timestamp * 1e6)
    assert [(round(m.timestamp * 1e6) - t0, m.arbitration_id, m.is_extended_id, m.dlc,
             bytes(m.data)) for m in theirs] == \
        [(us - classic[0][0], can_id, ext, len(data), data) for us, can_id, ext, _, data in classic]
    assert all(m.channel == 1 and m.is_rx and not m.is_fd and not m.is_remote_frame
               for m in theirs)

    back = os.path.join(tmpdir_private, "back.log")
    subprocess.run([cli, "can", "convert", trc, back], check=True, capture_output=True)
    with open(back) as f:
        assert f.read() == CANDUMP


def test_events_writes_trc_that_python_can_reads(cli, tmpdir_private):
    """`rtcosim events -o x.trc`: the same frames as the run's candump -l log
    (ids, data, times to the us), read by python-can's TRCReader."""
    paths = {ext: os.path.join(tmpdir_private, "can." + ext) for ext in ("log", "trc")}
    for path in paths.values():
        out = subprocess.run([cli, "events", "--stop-time", "0.2", "-o", path], check=True,
                             capture_output=True, text=True).stdout
    assert "PEAK TRC" in out
    frames = int(re.search(r"can bus\s+(\d+) frames", out).group(1))
    expected = [(round(m.timestamp * 1e6), m.arbitration_id, m.is_extended_id, bytes(m.data))
                for m in can.CanutilsLogReader(paths["log"])]
    assert len(expected) == frames > 20
    theirs = list(can.TRCReader(paths["trc"]))
    # rtcosim's TRC starts at the first frame's time down to 216 us: python-can's
    # times are offsets from that start
    lines = parse_trc_21(paths["trc"])
    start_us = expected[0][0] - lines[0][0]
    assert [(start_us + round(m.timestamp * 1e6), m.arbitration_id, m.is_extended_id,
             bytes(m.data)) for m in theirs] == expected
    log = rtcosim.read_can_log(paths["trc"])
    assert [round(t * 1e6) for t in log["time"]] == [e[0] for e in expected]
