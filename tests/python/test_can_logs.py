"""CAN logs written by `rtcosim events --can-log` read back by python-can's
readers (Debian python3-can): CanutilsLogReader for candump -l, ASCReader
for Vector ASC, BLFReader for Vector BLF; and BLF files python-can's
BLFWriter writes, read by `rtcosim can decode`. Truth: the candump text
parsed by a strict pattern of the format, and the frame count the run
reports."""
import csv
import os
import re
import subprocess

import can
import pytest

LINE = re.compile(r"^\((\d{10})\.(\d{6})\) can0 ([0-9A-F]{3}|[0-9A-F]{8})#((?:[0-9A-F]{2}){0,8})$")


@pytest.fixture
def logs(cli, tmpdir_private):
    paths = {}
    for ext in ("log", "asc", "blf"):
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


def test_blf_reader_reads_every_frame(logs):
    """BLF carries nanoseconds: each time within the candump log's rounding
    (half a microsecond) of its time there."""
    paths, expected = logs
    messages = list(can.BLFReader(paths["blf"]))
    assert len(messages) == len(expected)
    for m, (us, can_id, extended, data) in zip(messages, expected):
        assert abs(m.timestamp * 1e6 - us) <= 0.5 + 1e-6
        assert (m.arbitration_id, m.is_extended_id, bytes(m.data)) == (can_id, extended, data)
        assert m.channel == 0 and m.is_rx and not m.is_remote_frame and m.dlc == len(m.data)


def test_can_decode_reads_python_can_blf_writer_files(cli, logs, tmpdir_private):
    """python-can's own BLFWriter (CAN_MESSAGE objects, its header, containers
    of 128 KiB, a CAN_FD_MESSAGE, an error frame and a global marker it
    writes too, read over) with the example's frames: `rtcosim can decode`
    gives the candump log's signals. python-can stores times from its first
    message, so the candump log is decoded with --relative-time."""
    from conftest import source
    paths, expected = logs
    dbc = source("examples", "ecus", "vehicle.dbc")
    blf = os.path.join(tmpdir_private, "python-can.blf")
    writer = can.BLFWriter(blf)
    frames = list(can.CanutilsLogReader(paths["log"]))
    for k, m in enumerate(frames):
        writer.on_message_received(m)
        if k == 3:
            writer.on_message_received(can.Message(timestamp=m.timestamp, is_error_frame=True,
                                                   channel=0))
            writer.log_event("marker", m.timestamp)
    writer.on_message_received(can.Message(timestamp=frames[-1].timestamp + 0.001,
                                           arbitration_id=0x7E0, is_fd=True, bitrate_switch=True,
                                           data=bytes(range(12)), channel=0))
    writer.stop()
    outs = {}
    for name, path, extra in (("blf", blf, []), ("log", paths["log"], ["--relative-time"])):
        outs[name] = os.path.join(tmpdir_private, name + ".csv")
        r = subprocess.run([cli, "can", "decode", path, "--dbc", dbc, "-o", outs[name]] + extra,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    with open(outs["blf"]) as a, open(outs["log"]) as b:
        blf_rows, log_rows = list(csv.reader(a)), list(csv.reader(b))
    assert blf_rows[0] == log_rows[0] and len(blf_rows) == len(log_rows) == len(expected) + 1
    for x, y in zip(blf_rows[1:], log_rows[1:]):
        assert float(x[0]) == pytest.approx(float(y[0]), abs=2e-9)
        assert x[1:] == y[1:]
    r = subprocess.run([cli, "can", "decode", blf, "--dbc", dbc], capture_output=True, text=True)
    assert "1 frames with ids" in r.stderr  # the CAN FD frame 0x7E0: not in the DBC


def test_can_decode_refuses_a_cut_or_damaged_blf_in_one_line(cli, logs, tmpdir_private):
    """A BLF cut short (a logger that lost power) or with a damaged container:
    exit 1, one line naming the file and the byte of the container."""
    from conftest import source
    paths, _ = logs
    dbc = source("examples", "ecus", "vehicle.dbc")
    with open(paths["blf"], "rb") as f:
        data = f.read()
    cut = os.path.join(tmpdir_private, "cut.blf")
    damaged = os.path.join(tmpdir_private, "damaged.blf")
    with open(cut, "wb") as f:
        f.write(data[:len(data) - 40])
    with open(damaged, "wb") as f:
        f.write(data[:200] + bytes(b ^ 0x55 for b in data[200:230]) + data[230:])
    for path, want in ((cut, ": byte 144: an object of "), (damaged, ": byte 144: a log container")):
        r = subprocess.run([cli, "can", "decode", path, "--dbc", dbc], capture_output=True, text=True)
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr.count("\n") == 1 and path + want in r.stderr, r.stderr


def test_can_decode_matches_python_can_frames_decoded_by_hand(cli, logs, tmpdir_private):
    """`rtcosim can decode` with examples/ecus/vehicle.dbc: EngineSpeed is
    bytes 0-1 little-endian times 0.25, EngineTorque bytes 2-3 times 0.1
    minus 500 (as vehicle.c packs them), decoded here from python-can's
    frames; the ASC log decodes to the same CSV."""
    from conftest import source
    paths, _ = logs
    dbc = source("examples", "ecus", "vehicle.dbc")
    outs = {}
    for ext in ("log", "asc"):
        outs[ext] = os.path.join(tmpdir_private, ext + ".csv")
        subprocess.run([cli, "can", "decode", paths[ext], "--dbc", dbc, "-o", outs[ext]], check=True)
    with open(outs["log"]) as a, open(outs["asc"]) as b:
        assert a.read() == b.read()
    with open(outs["log"]) as f:
        rows = list(csv.reader(f))
    header = rows[0]
    speed = header.index("can0.EngineData.EngineSpeed")
    torque = header.index("can0.EngineData.EngineTorque")
    frames = list(can.CanutilsLogReader(paths["log"]))
    assert len(rows) - 1 == len(frames)  # every frame of the example is in the DBC
    last = None
    for frame, row in zip(frames, rows[1:]):
        assert float(row[0]) == pytest.approx(frame.timestamp, abs=1e-9)
        if frame.arbitration_id == 0x0C0:
            last = (int.from_bytes(frame.data[0:2], "little") * 0.25,
                    int.from_bytes(frame.data[2:4], "little") * 0.1 - 500)
        if last is None:
            assert row[speed] == "" and row[torque] == ""
        else:
            assert float(row[speed]) == last[0]
            assert float(row[torque]) == pytest.approx(last[1], abs=1e-9)
    assert last is not None


def test_can_decode_errors(cli, tmpdir_private):
    bad = os.path.join(tmpdir_private, "bad.dbc")
    with open(bad, "w") as f:
        f.write('VERSION ""\n\nBO_ 100 M: 8 A\n SG_ S : 0|8@3+ (1,0) [0|1] "" B\n')
    log = os.path.join(tmpdir_private, "x.log")
    with open(log, "w") as f:
        f.write("(0.000100) can0 064#01\n(0.000200) can0 064#0G\n")
    r = subprocess.run([cli, "can", "decode", log, "--dbc", bad], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert bad + ":4:" in r.stderr and "byte order" in r.stderr
    good = os.path.join(tmpdir_private, "good.dbc")
    with open(good, "w") as f:
        f.write('BO_ 100 M: 1 A\n SG_ S : 0|8@1+ (1,0) [0|255] "" B\n')
    r = subprocess.run([cli, "can", "decode", log, "--dbc", good], capture_output=True, text=True)
    assert r.returncode == 1 and log + ":2:" in r.stderr and "hex" in r.stderr
    r = subprocess.run([cli, "can", "decode", log], capture_output=True, text=True)
    assert r.returncode == 1 and "--dbc" in r.stderr


def test_can_decode_selects_signals_and_plots(cli, logs, tmpdir_private):
    from conftest import source
    paths, _ = logs
    dbc = source("examples", "ecus", "vehicle.dbc")
    out = os.path.join(tmpdir_private, "sel.csv")
    svg = os.path.join(tmpdir_private, "sel.svg")
    subprocess.run([cli, "can", "decode", paths["log"], "--dbc", dbc, "--signal", "EngineSpeed",
                    "--signal", "Brake.BrakePressure", "-o", out, "--plot", svg], check=True)
    with open(out) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "can0.EngineData.EngineSpeed", "can0.Brake.BrakePressure"]
    # Rows only for frames carrying a selected signal: EngineData (0x0C0) and Brake (0x220).
    carrying = [m for m in can.CanutilsLogReader(paths["log"]) if m.arbitration_id in (0x0C0, 0x220)]
    assert len(rows) - 1 == len(carrying)
    with open(svg) as f:
        assert "<svg" in f.read(2000)
    r = subprocess.run([cli, "can", "decode", paths["log"], "--dbc", dbc, "--signal", "Nope"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "'Nope'" in r.stderr


def test_can_decode_plot_interrupted_removes_its_temporary_directory(cli, tmpdir_private):
    """Issue 27 row 16: SIGINT while `can decode --plot` plots (from its private
    rtcosim-can-* CSV) ends it with 130 and leaves nothing in its TMPDIR."""
    import signal
    import time
    from conftest import source
    dbc = source("examples", "ecus", "vehicle.dbc")
    log = os.path.join(tmpdir_private, "big.log")
    with open(log, "w") as f:
        for k in range(400_000):  # EngineData (0x0C0), a plain 8-byte frame
            f.write(f"({1_000_000_000 + k // 1000:10d}.{k % 1000 * 1000:06d}) can0 0C0#"
                    f"{k & 0xFFFF:04X}{k * 7 & 0xFFFF:04X}00000000\n")
    tmp = os.path.join(tmpdir_private, "tmp")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    p = subprocess.Popen([cli, "can", "decode", log, "--dbc", dbc, "-o",
                          os.path.join(tmpdir_private, "out.csv"),
                          "--plot", os.path.join(tmpdir_private, "out.svg")],
                         env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not any(n.startswith("rtcosim-can-") for n in os.listdir(tmp)):
        assert p.poll() is None and time.monotonic() < deadline, "no temporary directory seen"
        time.sleep(0.001)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert os.listdir(tmp) == []


def test_python_can_reads_the_integrated_bus_can_fd_frames(cli, tmpdir_private):
    """CAN FD frames of rtcosim's integrated LS-BUS bus (`rtcosim run
    --can-bus`, two LsBusNodeLarge FMUs in CAN FD format) in the candump -l
    and ASC logs, read by python-can's readers. Truth: the candump text parsed
    by a strict pattern of can-utils' CAN FD format (ID##<flags nibble><data>),
    and the senders' data pattern, byte i of a node's k-th frame 7 i + 1 + k
    (models/lsbus_node, pattern 1)."""
    from conftest import CAN_NODE_CONNECTORS, fmu, write_ssd
    node = fmu("LsBusNodeLarge-fmi3.fmu")
    ssd = write_ssd(os.path.join(tmpdir_private, "fd.ssd"), {"a": node, "b": node},
                    CAN_NODE_CONNECTORS)
    paths = {}
    for ext in ("log", "asc", "blf"):
        paths[ext] = os.path.join(tmpdir_private, "fd." + ext)
        subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.0049", "-q",
                        "--can-bus", "can0=a.CAN,b.CAN", "--output-file",
                        os.path.join(tmpdir_private, "out.csv"),
                        "--start-value", "a.format", "1", "--start-value", "a.pattern", "1",
                        "--start-value", "a.brs", "1", "--start-value", "a.can_id", "200",
                        "--start-value", "a.data_length", "12",
                        "--start-value", "b.format", "1", "--start-value", "b.pattern", "1",
                        "--start-value", "b.can_id", "291",
                        "--start-value", "b.data_length", "20", "--start-value", "b.brs", "0",
                        "--can-log", paths[ext]], check=True, capture_output=True)
    line = re.compile(r"^\((\d{10})\.(\d{6})\) can0 ([0-9A-F]{3})##([0-3])((?:[0-9A-F]{2})*)$")
    expected, sent = [], {0x0C8: 0, 0x123: 0}
    with open(paths["log"]) as f:
        for text in f:
            m = line.match(text.rstrip("\n"))
            assert m, f"not a candump -l CAN FD line: {text!r}"
            can_id, data = int(m.group(3), 16), bytes.fromhex(m.group(5))
            k = sent[can_id]
            sent[can_id] += 1
            assert data == bytes((7 * i + 1 + k) & 0xFF for i in range(len(data)))
            expected.append((int(m.group(1)) * 1_000_000 + int(m.group(2)), can_id,
                             int(m.group(4)) & 1 == 1, data))
    # 4 frames each, requested at 1, 2, 3, 4 ms: 0x0C8 (12 bytes, BRS) then 0x123 (20, no BRS)
    assert sent == {0x0C8: 4, 0x123: 4}
    assert [(e[1], e[2], len(e[3])) for e in expected[:2]] == [(0x0C8, True, 12), (0x123, False, 20)]
    for reader in (can.CanutilsLogReader(paths["log"]),
                   can.ASCReader(paths["asc"], relative_timestamp=True), can.BLFReader(paths["blf"])):
        messages = list(reader)
        assert all(m.is_fd and not m.is_remote_frame and not m.error_state_indicator
                   for m in messages)
        assert [(round(m.timestamp * 1e6), m.arbitration_id, m.bitrate_switch, bytes(m.data))
                for m in messages] == expected


def test_a_replayed_log_stands_in_for_the_ecus_not_simulated(cli, tmpdir_private):
    """`rtcosim events --can-replay`: the 4-ECU vehicle's log (BLF) played
    onto a bus with only the first ECU (then the first two) gives the same
    frames at the same times as the whole vehicle: the replay supplies the
    others' frames where they ended, the simulated ECUs send their own (the
    replay leaves their ids out) and react to the replayed ones as to the
    real ones. Under every scheduler."""
    record = {}
    for ext in ("blf", "log"):
        record[ext] = os.path.join(tmpdir_private, "rec." + ext)
        subprocess.run([cli, "events", "--ecus", "4", "--stop-time", "1", "--quiet", "--can-log",
                        record[ext]], check=True, capture_output=True)
    with open(record["log"]) as f:
        whole = f.read()
    assert whole.count("\n") == 270
    for ecus in ("1", "2"):
        for scheduler in ("sequential", "conservative", "speculative"):
            out = os.path.join(tmpdir_private, f"rep{ecus}{scheduler}.log")
            r = subprocess.run([cli, "events", "--ecus", ecus, "--stop-time", "1", "--quiet",
                                "--scheduler", scheduler, "--threads", "2",
                                "--can-replay", record["blf"], "--can-log", out],
                               check=True, capture_output=True, text=True)
            sent = re.search(r"can replay  .*: (\d+) frames from log time 0\.000000 s, (\d+) "
                             r"frames left out whose ids the bus's ECUs send", r.stdout)
            assert sent and int(sent.group(1)) + int(sent.group(2)) == 270, r.stdout
            with open(out) as f:
                assert f.read() == whole, (ecus, scheduler)


def test_a_node_fmu_receives_a_replayed_log(cli, tmpdir_private):
    """`rtcosim run --can-bus can0=a.CAN,replay:LOG`: an LS-BUS node FMU
    (LsBusNodeLarge) gets the log's frames that end by the stop time (its
    rx_frames), the last one's id as its last_rx_id; python-can's reader of
    the log counts them."""
    from conftest import CAN_NODE_CONNECTORS, fmu, write_ssd
    record = os.path.join(tmpdir_private, "rec.blf")
    subprocess.run([cli, "events", "--ecus", "4", "--stop-time", "1", "--quiet", "--can-log",
                    record], check=True, capture_output=True)
    frames = [m for m in can.BLFReader(record) if m.timestamp <= 0.05 + 1e-12]
    ssd = write_ssd(os.path.join(tmpdir_private, "one.ssd"),
                    {"a": fmu("LsBusNodeLarge-fmi3.fmu")}, CAN_NODE_CONNECTORS)
    out = os.path.join(tmpdir_private, "out.csv")
    r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.05",
                        "--can-bus", "can0=a.CAN,replay:" + record, "--output-file", out],
                       check=True, capture_output=True, text=True)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert int(float(rows[-1]["a.rx_frames"])) == len(frames) > 10
    assert int(float(rows[-1]["a.last_rx_id"])) == frames[-1].arbitration_id
    assert "can bus can0: replay " + record + ": 270 frames" in r.stdout


def test_can_convert_round_trips_and_python_can_reads_the_result(cli, logs, tmpdir_private):
    """`rtcosim can convert`: candump -l -> BLF -> ASC -> candump -l gives
    the log back byte for byte; BLF -> BLF gives the run's own BLF back byte
    for byte (the frames' durations from their bits at 500 kbit/s are the
    bus's); python-can reads the converted BLF as the candump log."""
    paths, expected = logs
    p = {ext: os.path.join(tmpdir_private, "conv." + ext) for ext in ("blf", "asc", "log")}
    again = os.path.join(tmpdir_private, "again.blf")
    for src, dst in ((paths["log"], p["blf"]), (p["blf"], p["asc"]), (p["asc"], p["log"]),
                     (paths["blf"], again)):
        r = subprocess.run([cli, "can", "convert", src, dst], capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert f"converted {len(expected)} frames of can0 from {src}" in r.stdout
    with open(paths["log"], "rb") as a, open(p["log"], "rb") as b:
        assert a.read() == b.read()
    with open(paths["blf"], "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read()
    assert as_tuples(can.BLFReader(p["blf"])) == expected


def test_can_convert_picks_a_bus_and_says_what_it_leaves_out(cli, tmpdir_private):
    log = os.path.join(tmpdir_private, "two.log")
    with open(log, "w") as f:
        f.write("(0.001000) can0 123#11\n(0.002000) can1 124#22\n(0.003000) can0 125#R\n"
                "(0.004000) can0 18FEF100##1AABB\n")
    out = os.path.join(tmpdir_private, "one.log")
    r = subprocess.run([cli, "can", "convert", log, out], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert "2 buses (can0, can1): name one with --bus" in r.stderr
    r = subprocess.run([cli, "can", "convert", log, out, "--bus", "can2"], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "no bus 'can2'" in r.stderr
    r = subprocess.run([cli, "can", "convert", log, out, "--bus", "can0"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "1 remote frames and 0 CAN XL frames left out" in r.stderr
    with open(out) as f:
        assert f.read() == ("(0000000000.001000) can0 123#11\n"
                            "(0000000000.004000) can0 18FEF100##1AABB\n")
    r = subprocess.run([cli, "can", "convert", log + ".missing", out], capture_output=True,
                       text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and ".missing" in r.stderr


def peak_kb(argv):
    """The peak resident memory (kB) of a command run to its end."""
    import sys
    probe = ("import resource, subprocess, sys; "
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
             "sys.stderr.buffer.write(r.stderr); "
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    r = subprocess.run([sys.executable, "-c", probe] + argv, capture_output=True, text=True)
    code, kb = r.stdout.split()
    assert code == "0", r.stderr
    return int(kb)


def test_ctrl_c_leaves_a_complete_log_of_the_frames_converted(cli, tmpdir_private):
    """SIGINT in the middle of `can convert` (600 000 frames): the conversion
    stops at the next frame, OUT is closed as a complete log of the frames
    written so far (a BLF's header, ASC's end, an MDF file's cycle count),
    they are the input's first ones, one line says how many, and the exit
    status is 130 (before: OUT was left cut in the middle of a line or an
    object, unreadable)."""
    import signal
    import time
    log = os.path.join(tmpdir_private, "long.log")
    with open(log, "w") as f:
        for i in range(600_000):
            f.write("(%010d.%06d) can0 %03X#%02X%02X\n"
                    % (1700000000 + i // 10000, (i % 10000) * 100, 0x100 + i % 7, i & 0xFF,
                       (i >> 8) & 0xFF))
    with open(log) as f:
        source_lines = f.read().splitlines()
    for ext in ("log", "asc", "blf", "mf4"):
        out = os.path.join(tmpdir_private, "cut." + ext)
        p = subprocess.Popen([cli, "can", "convert", log, out], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        _catches_sigint(p.pid)
        _grown([out], p)  # (frames written: not a fixed sleep, CI is loaded)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate()
        assert p.returncode == 130, (ext, p.returncode, err)
        m = re.fullmatch(r"rtcosim: can convert: ended by SIGINT after (\d+) frames: \S+ "
                         r"holds them \(a complete [^)]+\)\n", err)
        assert m, (ext, err)
        n = int(m.group(1))
        assert 0 < n < 600_000, (ext, n)
        back = os.path.join(tmpdir_private, "back-%s.log" % ext)
        subprocess.run([cli, "can", "convert", out, back], check=True, capture_output=True)
        with open(back) as f:
            assert f.read().splitlines() == source_lines[:n], ext


def _catches_sigint(pid, wait=20.0):
    """Wait until process pid has its SIGINT handler set (its SigCgt mask in
    /proc, as test_cli_signals.c's catches() reads it): a signal sent before
    ends it as any program. False when it ended first."""
    import signal
    import time
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("SigCgt:") and int(line.split()[1], 16) >> (
                            signal.SIGINT - 1) & 1:
                        return True
        except OSError:
            return False
        time.sleep(0.001)
    return False


def _grown(paths, p, size=4096, wait=60.0):
    """Wait until one of paths holds more than size bytes (rows past the
    header: a loaded machine may give the writer no time for a while) or
    process p ended."""
    import time
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and p.poll() is None:
        for path in paths:
            try:
                if os.path.getsize(path) > size:
                    return
            except OSError:
                pass
        time.sleep(0.002)


def test_ctrl_c_leaves_the_rows_decoded(cli, tmpdir_private):
    """SIGINT while `can decode` writes its rows (600 000 frames, 200 000 of
    EngineData): the output holds the rows so far, complete (a CSV's whole
    lines, which are the full decode's first rows; an MDF file converted from
    them, its CSV beside it removed), one line says how many, exit status
    130; in the first pass (finding the messages) nothing is written."""
    import signal
    import time
    from conftest import source
    log = os.path.join(tmpdir_private, "long.log")
    with open(log, "w") as f:
        for i in range(600_000):
            f.write("(%010d.%06d) can0 %03X#%02X%02X000000000000\n"
                    % (1700000000 + i // 10000, (i % 10000) * 100, (0x0C0, 0x123, 0x7E8)[i % 3],
                       i & 0xFF, (i >> 8) & 0xFF))
    dbc = source("examples", "ecus", "vehicle.dbc")
    full = os.path.join(tmpdir_private, "full.csv")
    subprocess.run([cli, "can", "decode", log, "--dbc", dbc, "-o", full], check=True,
                   capture_output=True)
    with open(full) as f:
        full_rows = f.read().splitlines()
    for ext in ("csv", "mf4", "mat"):
        out = os.path.join(tmpdir_private, "cut." + ext)
        p = subprocess.Popen([cli, "can", "decode", log, "--dbc", dbc, "-o", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _grown([out, out + ".csv.part"], p)  # (rows written: not a fixed sleep, CI is loaded)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate()
        assert p.returncode == 130, (ext, p.returncode, err)
        m = re.search(r"rtcosim: can decode: ended by SIGINT after (\d+) rows: \S+ holds them\n$",
                      err)
        assert m, (ext, err)
        n = int(m.group(1))
        assert 0 < n < 200_000, (ext, n)
        assert not os.path.exists(out + ".csv.part")  # (MAT and MDF went through one before)
        if ext == "csv":
            with open(out) as f:
                assert f.read().splitlines() == full_rows[:n + 1]
        elif ext == "mat":  # the rows written as they came: the CSV's first n, value for value
            back = out + ".csv"  # (times of 1.7e9 s: a double holds them to about 0.2 us)
            subprocess.run([cli, "convert", out, back], check=True, capture_output=True)
            with open(back) as f:
                got = [r.split(",") for r in f.read().splitlines()]
            want = [r.split(",") for r in full_rows[:n + 1]]
            assert len(got) == n + 1 and got[0] == want[0]
            assert all(g[1:] == w[1:] and abs(float(g[0]) - float(w[0])) < 1e-6
                       for g, w in zip(got[1:], want[1:]))
        else:
            info = subprocess.run([cli, "info", out], check=True, capture_output=True,
                                  text=True).stdout
            assert re.search(r"\n1 +%d .*can0\.EngineData\.EngineSpeed" % n, info), info
    # in the first pass: nothing written (a signal that comes before the process has set
    # its handlers ends it as any program: tried again a little later)
    out = os.path.join(tmpdir_private, "none.csv")
    for delay in (0, 0.01, 0.03, 0.06, 0.1):
        p = subprocess.Popen([cli, "can", "decode", log, "--dbc", dbc, "-o", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _catches_sigint(p.pid)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate()
        if p.returncode != -signal.SIGINT:
            break
    assert p.returncode == 130 and "while reading" in err and "nothing written" in err, err
    assert not os.path.exists(out)
    # can isotp: the messages completed before the signal, in the CSV (0x7E8's Single Frames:
    # the full listing's first ones)
    full = os.path.join(tmpdir_private, "isotp_full.csv")
    subprocess.run([cli, "can", "isotp", log, "-o", full], check=True, capture_output=True)
    with open(full) as f:
        full_rows = f.read().splitlines()
    out = os.path.join(tmpdir_private, "isotp_cut.csv")
    # (the whole run takes about 0.1 s: a signal before the handlers are set ends the process
    # as any program, one after the reading finds it done; tried at other times then)
    for delay in (0.02, 0.04, 0.01, 0.06, 0.03, 0.005, 0, 0.002):
        p = subprocess.Popen([cli, "can", "isotp", log, "-o", out], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        _catches_sigint(p.pid)  # (its handler set: a loaded machine may take longer than 60 ms)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate()
        if p.returncode not in (0, -signal.SIGINT):
            break
    m = re.search(r"ended by SIGINT after \d+ frames of \S+: the (\d+) messages completed so far "
                  r"are in the CSV file", err)
    assert p.returncode == 130 and m, (p.returncode, err)
    with open(out) as f:
        assert f.read().splitlines() == full_rows[:int(m.group(1)) + 1]


def test_a_long_log_converts_and_decodes_a_frame_at_a_time(cli, tmpdir_private):
    """600 000 frames (27 MB of candump -l): `can convert` to BLF, MDF and ASC
    and `can decode` stream them from the reader to the writer, so the peak
    memory stays far below the log's (it held the file twice and every frame
    in 96 bytes: about 4 times the file before); every frame comes back."""
    from conftest import source
    if "ASAN_OPTIONS" in os.environ:
        pytest.skip("under AddressSanitizer the peak memory is the sanitizer's")
    log = os.path.join(tmpdir_private, "long.log")
    n = 600_000
    with open(log, "w") as f:
        for i in range(n):
            cid = (0x0C0, 0x123, 0x7E8)[i % 3]
            f.write("(%010d.%06d) can0 %03X#%02X%02X000000000000\n"
                    % (1700000000 + i // 10000, (i % 10000) * 100, cid, i & 0xFF, (i >> 8) & 0xFF))
    size_kb = os.path.getsize(log) // 1024
    assert size_kb > 25 * 1024
    # `info` streams too: per id its frames and period (every 3rd frame is
    # one id's: 200 000 frames, 0.3 ms apart)
    assert peak_kb([cli, "info", log]) < 32 * 1024
    info = subprocess.run([cli, "info", log], check=True, capture_output=True, text=True).stdout
    assert "frames               600000 on 1 bus: can0" in info
    assert re.search(r"0x0C0 +can0 +classic +- +200000 +8 +0\.300 +0\.300 +0\.300", info), info
    for ext in ("blf", "mf4", "asc"):
        out = os.path.join(tmpdir_private, "long." + ext)
        kb = peak_kb([cli, "can", "convert", log, out])
        assert kb < 32 * 1024, (ext, kb, size_kb)
        back = os.path.join(tmpdir_private, "back-%s.log" % ext)
        kb = peak_kb([cli, "can", "convert", out, back])
        assert kb < 32 * 1024, (ext, kb, size_kb)  # (MDF: 165 MB read whole before)
        with open(log, "rb") as a, open(back, "rb") as b:  # (times kept as they are)
            assert a.read() == b.read(), ext
    # can decode: EngineData (0x0C0) of the example vehicle's database; its
    # EngineSpeed is bytes 0-1 little-endian x 0.25 rpm.
    csv_path = os.path.join(tmpdir_private, "long.csv")
    kb = peak_kb([cli, "can", "decode", log, "--dbc", source("examples", "ecus", "vehicle.dbc"),
                  "--signal", "EngineSpeed", "-o", csv_path])
    assert kb < 32 * 1024, kb
    with open(csv_path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "can0.EngineData.EngineSpeed"]
    assert len(rows) == 1 + n // 3
    last = n - 3  # the last 0x0C0 frame
    time = ("%d.%06d" % (1700000000 + last // 10000, (last % 10000) * 100)).rstrip("0")
    assert rows[-1] == [time, repr(((last & 0xFF) | (((last >> 8) & 0xFF) << 8)) * 0.25)]
    # can isotp streams: the reassembler keeps the messages, not the frames
    # (0x7E8's frames whose first byte is a Single Frame's PCI, 0x01-0x07
    # with that many bytes after it: 7 of every 256)
    iso = subprocess.run([cli, "can", "isotp", log], capture_output=True, text=True)
    assert iso.returncode == 0, iso.stderr
    assert "%d ISO-TP messages from 200000 frames" % (7 * (200000 // 256) + sum(
        1 for k in range(200000 // 256 * 256, 200000) if 1 <= ((3 * k + 2) & 0xFF) <= 7)) \
        in iso.stderr, iso.stderr
    assert peak_kb([cli, "can", "isotp", log]) < 32 * 1024
    assert peak_kb([cli, "can", "dtc", log]) < 32 * 1024  # (none in it)
    # with ISO-TP read on 0x7E8 (reassembled in the first pass, a frame at a
    # time): as little memory, and the same rows of the other message
    iso_csv = os.path.join(tmpdir_private, "iso.csv")
    kb = peak_kb([cli, "can", "decode", log, "--dbc", source("examples", "ecus", "vehicle.dbc"),
                  "--signal", "EngineSpeed", "--isotp", "0x7E8", "-o", iso_csv])
    assert kb < 32 * 1024, kb
    with open(iso_csv) as f:
        assert list(csv.reader(f)) == rows


def dbc_path():
    from conftest import source
    return source("examples", "ecus", "vehicle.dbc")


def test_can_convert_leaves_no_half_written_file(cli, tmpdir_private):
    log = os.path.join(tmpdir_private, "bad.log")
    with open(log, "w") as f:
        f.write("(0.001000) can0 123#11\n" * 1000 + "(0.002000) can0 12G#22\n")
    out = os.path.join(tmpdir_private, "out.blf")
    r = subprocess.run([cli, "can", "convert", log, out], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "bad.log:1001:" in r.stderr
    assert not os.path.exists(out)
    # the same file as IN and OUT: refused before anything is written
    good = os.path.join(tmpdir_private, "good.log")
    with open(good, "w") as f:
        f.write("(0.001000) can0 123#11\n")
    r = subprocess.run([cli, "can", "convert", good, good], capture_output=True, text=True)
    assert r.returncode == 1 and "good.log is both IN and OUT" in r.stderr, r.stderr
    with open(good) as f:
        assert f.read() == "(0.001000) can0 123#11\n"
    # nor can decode write its CSV over the log it reads (twice)
    r = subprocess.run([cli, "can", "decode", good, "--dbc", dbc_path(), "-o", good],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "good.log is both the LOG and the output" in r.stderr, r.stderr
    with open(good) as f:
        assert f.read() == "(0.001000) can0 123#11\n"
    # two buses and no --bus: nothing written either
    two = os.path.join(tmpdir_private, "two.log")
    with open(two, "w") as f:
        f.write("(0.001000) can0 123#11\n(0.002000) can1 124#22\n(0.003000) can2 124#22\n")
    r = subprocess.run([cli, "can", "convert", two, out], capture_output=True, text=True)
    assert r.returncode == 1 and "3 buses (can0, can1, ...): name one with --bus" in r.stderr
    assert not os.path.exists(out)


def test_a_log_from_a_pipe_is_read_once(cli, tmpdir_private):
    """A log piped in cannot be read twice: `can decode` (two passes when it
    streams) and `can convert` to MDF (a counting pass first) read it whole
    once and give what they give for the file."""
    from conftest import source
    log = os.path.join(tmpdir_private, "p.log")
    with open(log, "w") as f:
        f.write("(0.001000) can0 0C0#A00F\n(0.002000) can0 0C0#A00F881300000007\n"
                "(0.003000) can0 0C0#A00F\n")
    dbc = source("examples", "ecus", "vehicle.dbc")

    def piped(argv):
        with open(log, "rb") as f:
            feeder = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
            r = subprocess.run(argv, stdin=feeder.stdout, capture_output=True, text=True)
            feeder.stdout.close()
            feeder.wait()
        assert r.returncode == 0, r.stderr
        return r.stdout

    from_file = subprocess.run([cli, "can", "decode", log, "--dbc", dbc], check=True,
                               capture_output=True, text=True).stdout
    assert from_file.count("\n") == 4  # header and 3 rows
    assert piped([cli, "can", "decode", "/dev/stdin", "--dbc", dbc]) == from_file
    mf4 = os.path.join(tmpdir_private, "p.mf4")
    piped([cli, "can", "convert", "/dev/stdin", mf4])
    back = os.path.join(tmpdir_private, "back.log")
    subprocess.run([cli, "can", "convert", mf4, back], check=True, capture_output=True)
    with open(back) as f:
        assert f.read() == ("(0000000000.001000) can0 0C0#A00F\n"
                            "(0000000000.002000) can0 0C0#A00F881300000007\n"
                            "(0000000000.003000) can0 0C0#A00F\n")


def test_info_of_a_named_pipe_out_of_time_order(cli, tmpdir_private):
    """`info` streams a file and reads one out of time order again, sorted; a
    named pipe cannot be read again, so it is read whole once: the same
    statistics as for the file (0x123 at 1.0, 1.2, 0.9 s: gaps 100 and 200
    ms, period 150 ms)."""
    import threading
    text = ("(1.000000) can0 123#11\n(1.500000) can0 124#22\n(1.200000) can0 123#33\n"
            "(0.900000) can0 123#44\n")
    path = os.path.join(tmpdir_private, "f.log")
    with open(path, "w") as f:
        f.write(text)
    from_file = subprocess.run([cli, "info", path], check=True, capture_output=True,
                               text=True).stdout
    fifo = os.path.join(tmpdir_private, "fifo.log")
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as f:
            f.write(text)
    writer = threading.Thread(target=feed)
    writer.start()
    from_fifo = subprocess.run([cli, "info", fifo], check=True, capture_output=True,
                               text=True, timeout=30).stdout
    writer.join()
    assert from_fifo == from_file.replace(path, fifo)
    assert re.search(r"0x123 +can0 +classic +- +3 +1 +150\.000 +100\.000 +200\.000", from_file)


@pytest.mark.parametrize("scheduler", ["sequential", "speculative"])
def test_checksum_does_not_depend_on_writing_a_log(cli, tmpdir_private, scheduler):
    """The printed checksum covers the bus's frames by their digest whether
    or not --can-log writes them: the same run gives the same checksum."""
    def checksum(*extra):
        out = subprocess.run([cli, "events", "--stop-time", "0.2", "--scheduler", scheduler,
                              *extra], check=True, capture_output=True, text=True).stdout
        return re.search(r"^checksum\s+([0-9a-f]{16})$", out, re.M).group(1)
    plain = checksum()
    logged = checksum("--can-log", os.path.join(tmpdir_private, "c.log"))
    assert plain == logged
