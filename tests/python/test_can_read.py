"""rtcosim.read_can_log, rtcosim.iter_can_log and rtcosim.read_isotp: CAN logs
into NumPy through librtcosim's readers. Truth: the frames python-can (Debian
python3-can) writes with its own BLFWriter, ASCWriter and CanutilsLogWriter
and reads back with its readers; an MDF bus log built byte by byte with a DBC
attached (tests/can/mdf_bus_build.py); ISO-TP frames laid out by hand as ISO
15765-2 puts them."""
import os
import subprocess
import sys
import time

import can
import numpy as np
import pytest

import rtcosim
from conftest import instrumented


def frames():
    """Classic and CAN FD frames on two channels: 11- and 29-bit ids, a remote
    frame, BRS and ESI, 0 to 64 bytes."""
    out, t = [], 1.0
    for k in range(40):
        t += 0.0125
        if k % 10 == 3:
            out.append(can.Message(timestamp=t, arbitration_id=0x123, is_remote_frame=True, dlc=4,
                                   channel=0))
        elif k % 5 == 1:
            size = [12, 16, 20, 24, 32, 48, 64, 8][k % 8]
            out.append(can.Message(timestamp=t, arbitration_id=0x18DA10F1 + k, is_extended_id=True,
                                   is_fd=True, bitrate_switch=k % 2 == 0,
                                   error_state_indicator=k % 3 == 0,
                                   data=bytes((k * 7 + i) & 0xFF for i in range(size)),
                                   channel=k % 2))
        else:
            out.append(can.Message(timestamp=t, arbitration_id=(0x100 + k) if k % 3 else 0x1ABCDE00 + k,
                                   is_extended_id=k % 3 == 0, data=bytes(range(k % 9)),
                                   channel=k % 2))
    return out


@pytest.mark.parametrize("ext,writer,reader,tolerance", [
    ("blf", can.BLFWriter, can.BLFReader, 1e-9),
    ("asc", can.ASCWriter, can.ASCReader, 1e-6),
])
def test_read_can_log_equals_python_can(tmpdir_private, ext, writer, reader, tolerance):
    path = os.path.join(tmpdir_private, "frames." + ext)
    w = writer(path)
    for m in frames():
        w.on_message_received(m)
    w.stop()
    theirs = list(reader(path))
    ours = rtcosim.read_can_log(path)
    assert len(ours) == len(theirs) == 40
    assert isinstance(ours, rtcosim.CanLog) and ours.path == path and ours.xl_frames == 0
    assert ours.database is None and ours.database_name is None
    same_as_python_can(ours, theirs, tolerance)
    # in chunks of 7 frames: the same frames, the bus indexes kept across chunks
    chunks = list(rtcosim.iter_can_log(path, frames=7))
    assert [len(c) for c in chunks] == [7] * 5 + [5]
    assert all(isinstance(c, rtcosim.CanLog) and c.path == path for c in chunks)
    assert chunks[-1].buses == ours.buses
    for c in chunks:
        assert all(c.buses[b] == ours.buses[b] for b in c["bus"])
    assert (np.concatenate(chunks) == ours).all()
    can1 = ours.bus_frames("can1")
    assert len(can1) == sum(1 for m in theirs if m.channel == 1)
    with pytest.raises(KeyError, match="no bus 'can7'"):
        ours.bus_frames("can7")


def same_as_python_can(ours, theirs, tolerance):
    t0 = ours["time"][0] - theirs[0].timestamp  # (the formats count from their start)
    for f, m in zip(ours, theirs):
        assert f["id"] == m.arbitration_id and bool(f["extended"]) == m.is_extended_id
        assert bool(f["remote"]) == m.is_remote_frame and bool(f["fd"]) == m.is_fd
        assert bool(f["brs"]) == m.bitrate_switch and bool(f["esi"]) == m.error_state_indicator
        assert ours.buses[f["bus"]] == "can%d" % m.channel
        assert f["time"] - t0 == pytest.approx(m.timestamp, abs=tolerance)
        if m.is_remote_frame:
            assert f["dlc"] == 0 or f["dlc"] == m.dlc
            continue
        assert f["dlc"] == len(m.data)
        assert bytes(f["data"][:f["dlc"]]) == bytes(m.data) and not f["data"][f["dlc"]:].any()


def test_read_can_log_candump(tmpdir_private):
    path = os.path.join(tmpdir_private, "frames.log")
    w = can.CanutilsLogWriter(path, channel="can0")
    sent = [m for m in frames() if not m.is_remote_frame]
    for m in sent:
        w.on_message_received(m)
    w.stop()
    ours = rtcosim.read_can_log(path)
    assert [int(i) for i in ours["id"]] == [m.arbitration_id for m in sent]
    assert [bytes(f["data"][:f["dlc"]]) for f in ours] == [bytes(m.data) for m in sent]
    assert np.allclose(ours["time"], [m.timestamp for m in sent], atol=1e-6, rtol=0)


def test_read_isotp_reassembles_uds(tmpdir_private):
    """ReadDataByIdentifier 0xF190 (Single Frame), the 20-byte VIN answer
    (First Frame FF_DL 0x014, two Consecutive Frames, the tester's Flow
    Control between), a negative response."""
    path = os.path.join(tmpdir_private, "uds.log")
    with open(path, "w") as f:
        f.write("(1.000000) can0 7E0#0322F190CCCCCCCC\n(1.001000) can0 7E8#101462F190574442\n"
                "(1.002000) can0 7E0#300000CCCCCCCCCC\n(1.003000) can0 7E8#2131323334353637\n"
                "(1.004000) can0 7E8#2238393041424344\n(1.006000) can0 7E8#037F2231CCCCCCCC\n")
    messages, counts = rtcosim.read_isotp(path)
    assert counts == {"frames": 6, "flow_control": 1, "incomplete": 0, "invalid": 0}
    assert [(m["id"], m["data"]) for m in messages] == [
        (0x7E0, bytes.fromhex("22F190")),
        (0x7E8, bytes.fromhex("62F190") + b"WDB1234567890ABCD"),
        (0x7E8, bytes.fromhex("7F2231"))]
    assert messages[1]["time"] == pytest.approx(1.004) and messages[1]["first_time"] == 1.001
    assert messages[1]["service"] == "ReadDataByIdentifier response DID 0xF190"
    assert messages[2]["service"] == "negative response to ReadDataByIdentifier: requestOutOfRange"
    assert all(m["bus"] == "can0" and m["address"] is None for m in messages)
    only_requests, _ = rtcosim.read_isotp(path, ids=0x7E0)
    assert [m["data"] for m in only_requests] == [bytes.fromhex("22F190")]
    with pytest.raises(ValueError, match="one kind"):
        rtcosim.read_isotp(path, ids=[(0x700, 0x800)])
    # the log is read a frame at a time: a bad line still names the file and line, and the
    # buses are named as the log names them
    with open(path, "a") as f:
        f.write("(1.007000) vcan3 7E0#0210030000000000\n(1.008000) can0 7E8#XY\n")
    with pytest.raises(rtcosim.Error, match="uds.log:8:"):
        rtcosim.read_isotp(path)
    with open(path, "w") as f:
        f.write("(1.000000) can0 7E0#0322F190CCCCCCCC\n(1.007000) vcan3 7E0#0210030000000000\n")
    messages, _ = rtcosim.read_isotp(path)
    assert [(m["bus"], m["data"]) for m in messages] == [("can0", bytes.fromhex("22F190")),
                                                          ("vcan3", bytes.fromhex("1003"))]
    assert messages[1]["service"].startswith("DiagnosticSessionControl")


def test_can_isotp_writes_a_csv_the_csv_module_reads(cli, tmpdir_private):
    """`rtcosim can isotp -o F.csv`: one row per message (RFC 4180: the
    service's words quoted), the response's P2 when its request is in the log."""
    import csv
    import subprocess
    path, out = (os.path.join(tmpdir_private, n) for n in ("uds.log", "uds.csv"))
    with open(path, "w") as f:
        f.write("(1.000000) can0 7E0#0322F190CCCCCCCC\n(1.001000) can0 7E8#101462F190574442\n"
                "(1.002000) can0 7E0#300000CCCCCCCCCC\n(1.003000) can0 7E8#2131323334353637\n"
                "(1.004000) can0 7E8#2238393041424344\n(1.006000) can0 7E8#037F2231CCCCCCCC\n")
    r = subprocess.run([cli, "can", "isotp", path, "-o", out], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(x["time"], x["id"], x["length"], x["p2_ms"], x["data"]) for x in rows] == [
        ("1", "0x7E0", "3", "", "22F190"),
        ("1.004", "0x7E8", "20", "1.000", "62F190" + b"WDB1234567890ABCD".hex().upper()),
        ("1.006", "0x7E8", "3", "", "7F2231")]  # (its request is not in the log)
    assert rows[2]["service"] == "negative response to ReadDataByIdentifier: requestOutOfRange"
    assert all(x["bus"] == "can0" and x["address"] == "" for x in rows)


def test_read_can_log_errors_name_the_file(tmpdir_private):
    missing = os.path.join(tmpdir_private, "missing.blf")
    with pytest.raises(rtcosim.Error, match="missing.blf"):
        rtcosim.read_can_log(missing)
    junk = os.path.join(tmpdir_private, "junk.log")
    with open(junk, "wb") as f:
        f.write(b"\x1b[2Jnot a log\n")
    with pytest.raises(rtcosim.Error) as e:
        rtcosim.read_can_log(junk)
    assert "junk.log:1: not a candump -l, ASC, TRC, BLF or MDF log" in str(e.value)
    assert "\\x1B" in str(e.value) and "\x1b" not in str(e.value)


def test_an_mdf_logs_attached_database_comes_with_it(tmpdir_private):
    sys.path.insert(0, os.path.join(os.environ["RTCOSIM_SOURCE_DIR"], "tests", "can"))
    import mdf_bus_build
    path = os.path.join(tmpdir_private, "attached.mf4")
    f = mdf_bus_build.logger()
    dbc = b"BO_ 291 M123: 8 N\n SG_ B0 : 0|8@1+ (1,0) [0|255] \"\" X\n"
    mdf_bus_build.attach(f, "rig.dbc", dbc, True)
    with open(path, "wb") as out:
        out.write(f.data)
    ours = rtcosim.read_can_log(path)
    assert len(ours) == len(mdf_bus_build.FRAMES) + 1  # (and the remote frame)
    assert ours.database == dbc.decode() and ours.database_name == "rig.dbc"
    chunks = list(rtcosim.iter_can_log(path, frames=2))
    assert all(c.database == dbc.decode() and c.database_name == "rig.dbc" for c in chunks)
    assert (np.concatenate(chunks) == ours).all()


def test_iter_can_log_gives_the_frames_before_an_error(tmpdir_private):
    path = os.path.join(tmpdir_private, "bad.log")
    with open(path, "w") as f:
        f.write("(1.0) can0 123#11\n(2.0) can0 124#2222\n(3.0) can0 XYZ#33\n")
    got = []
    with pytest.raises(rtcosim.Error) as e:
        for chunk in rtcosim.iter_can_log(path, frames=1):
            got.append((int(chunk["id"][0]), int(chunk["dlc"][0])))
    assert got == [(0x123, 1), (0x124, 2)]
    assert "bad.log:3:" in str(e.value)
    with pytest.raises(rtcosim.Error, match="bad.log:3:"):
        rtcosim.read_can_log(path)
    with pytest.raises(ValueError, match="at least 1 frame"):
        next(rtcosim.iter_can_log(path, frames=0))


def long_log(path, n):
    with open(path, "w") as f:
        f.writelines("(%d.%06d) can0 %03X#%016X\n" % (1 + i // 10000, (i % 10000) * 100,
                                                     i & 0x7FF, i) for i in range(n))


def test_a_loop_left_early_stops_the_reading(tmpdir_private):
    path = os.path.join(tmpdir_private, "long.log")
    long_log(path, 100000)
    threads = len(os.listdir("/proc/self/task"))
    for chunk in rtcosim.iter_can_log(path, frames=1000):
        # the library reads ahead on a thread of its own ...
        assert len(os.listdir("/proc/self/task")) == threads + 1
        break
    assert len(chunk) == 1000 and int(chunk["id"][999]) == 999
    assert bytes(chunk["data"][999][:8]) == (999).to_bytes(8, "big")
    # ... which the loop's end stopped (the generator closed with it, the thread joined; a
    # joined thread's /proc entry can outlive the join by a moment on a loaded machine)
    deadline = time.monotonic() + 5
    while len(os.listdir("/proc/self/task")) != threads and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(os.listdir("/proc/self/task")) == threads


def test_read_can_log_holds_about_its_frames(tmpdir_private):
    """300 000 frames: the CanLog is 86 bytes a frame (26 MB); reading the
    library's 96-byte records whole, then converting, took about 3 times that."""
    if instrumented(os.environ["RTCOSIM_LIBRARY"]):
        pytest.skip("sanitizer build: resident memory is no measure")
    path = os.path.join(tmpdir_private, "long.log")
    n = 300000
    long_log(path, n)
    code = ("import resource, sys, rtcosim\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "log = rtcosim.read_can_log(sys.argv[1])\n"
            "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "assert len(log) == %d and int(log['id'][-1]) == %d\n"
            "print((after - before) * 1024 / log.nbytes)\n" % (n, (n - 1) & 0x7FF))
    out = subprocess.run([sys.executable, "-c", code, path], check=True, capture_output=True,
                         text=True, env=os.environ)
    ratio = float(out.stdout)
    assert ratio < 2.0, f"read_can_log peaked at {ratio:.2f} times its frames"
