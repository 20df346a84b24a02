"""MDF 4 results (-o x.mf4) read back block by block as the format lays
them out (little-endian; a block: "##XX", 4 reserved bytes, its length and
link count as uint64, the links, its data): the ID block, HD -> DG -> CG ->
CN chain with names, units and comments, the DT records. Truth: the CSV of
the same run value by value (no tolerance), BouncingBall's free fall
(h = 1 - 9.81 t^2 / 2, v = -9.81 t before the first bounce) and its units;
a Feedthrough run's String and Binary columns left out with a warning;
`can decode -o x.mf4` of a two-frame candump log against
examples/ecus/vehicle.dbc (EngineSpeed bytes 0-1 x 0.25 rpm, EngineTorque
bytes 2-3 x 0.1 - 500 N.m, with the DBC's units; a log of wall-clock
times starts the measurement at its first frame); `run` of a system in (virtual-clock) real time.
The same files were opened with asammdf 8.0.0 outside the suite
(src/results/README.md).
Usage: test_mdf.py RTCOSIM BOUNCINGBALL_FMU FEEDTHROUGH_FMU VEHICLE_DBC SSD"""
import csv
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdf_parse import read_mf4  # noqa: E402

rtcosim, ball, feedthrough, dbc, ssd = sys.argv[1:6]


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    def cell(x):
        try:
            return float(x)
        except ValueError:
            return x  # String and Binary cells
    return rows[0], [[cell(x) for x in row] for row in rows[1:]]


def simulate(fmu, out, *args):
    r = subprocess.run([rtcosim, "simulate", fmu, "--stop-time", "0.3", "--output-interval", "0.1",
                        "-o", out, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


with tempfile.TemporaryDirectory() as tmp:
    import time
    before = time.time_ns()
    mf4, csv_path = os.path.join(tmp, "ball.mf4"), os.path.join(tmp, "ball.csv")
    outs = ["--output-variable", "h", "--output-variable", "v"]
    simulate(ball, mf4, *outs)
    assert not os.path.exists(mf4 + ".csv.part")
    simulate(ball, csv_path, *outs)
    channels, start = read_mf4(mf4)
    assert before - 10**9 <= start <= time.time_ns(), (before, start)
    header, rows = read_csv(csv_path)
    assert [c[0] for c in channels] == header == ["time", "h", "v"], channels
    assert [(c[1], c[3], c[4], c[5]) for c in channels] == [("s", 2, 1, (4, 64)),
                                                             ("m", 0, 0, (4, 64)),
                                                             ("m/s", 0, 0, (4, 64))]
    assert channels[1][2] == "Height of the ball, h(start) = h0", channels[1][2]
    for k, c in enumerate(channels):
        assert c[6] == [row[k] for row in rows], (c[0], c[6])  # bit for bit
    t = [0.0, 0.1, 0.2, 0.3]
    assert channels[0][6] == t
    assert all(abs(h - (1 - 9.81 * x * x / 2)) < 1e-12 for h, x in zip(channels[1][6], t))
    assert all(abs(v + 9.81 * x) < 1e-12 for v, x in zip(channels[2][6], t))

    # String and Binary columns have no numeric channel: said, the rest written
    ft = os.path.join(tmp, "ft.mf4")
    r = simulate(feedthrough, ft)
    assert "'String_output' is not written: the MDF file holds numeric channels only" in r.stderr
    ft_channels = read_mf4(ft)[0]
    names = [c[0] for c in ft_channels]
    assert "Int32_output" in names and "String_output" not in names and \
        "Binary_output" not in names, names
    # each channel in its variable's type (FMI 3.0's, modelDescription.xml of the
    # Feedthrough FMU), the values the CSV's
    stored = {c[0]: c[5] for c in ft_channels}
    assert stored["Float64_continuous_output"] == (4, 64) and \
        stored["Float32_continuous_output"] == (4, 32) and stored["Int8_output"] == (2, 8) and \
        stored["UInt8_output"] == (0, 8) and stored["Int16_output"] == (2, 16) and \
        stored["UInt16_output"] == (0, 16) and stored["Int32_output"] == (2, 32) and \
        stored["UInt32_output"] == (0, 32) and stored["Int64_output"] == (2, 64) and \
        stored["UInt64_output"] == (0, 64) and stored["Boolean_output"] == (0, 8), stored
    ft_csv = os.path.join(tmp, "ft.csv")
    simulate(feedthrough, ft_csv, "--start-value", "Int8_input", "-128", "--start-value",
             "UInt64_input", "18446744073709549568", "--start-value", "Boolean_input", "true",
             "--start-value", "Float32_continuous_input", "0.1")
    simulate(feedthrough, ft, "--start-value", "Int8_input", "-128", "--start-value",
             "UInt64_input", "18446744073709549568", "--start-value", "Boolean_input", "true",
             "--start-value", "Float32_continuous_input", "0.1")
    header, rows = read_csv(ft_csv)
    values = {c[0]: c[6] for c in read_mf4(ft)[0]}
    for k, name in enumerate(header):
        if name in values and name.startswith("Float32"):  # the CSV's shortest float text
            assert values[name] == [struct.unpack("<f", struct.pack("<f", row[k]))[0]
                                    for row in rows], name
        elif name in values:
            assert [float(v) for v in values[name]] == [row[k] for row in rows], name
    assert values["Int8_output"][-1] == -128 and values["Boolean_output"][-1] == 1
    assert values["UInt64_output"][-1] == 18446744073709549568, values["UInt64_output"]
    assert values["Float32_continuous_output"][-1] == struct.unpack("<f", struct.pack("<f", 0.1))[0]

    # can decode: A0 0F -> 0x0FA0 * 0.25 = 1000 rpm, 70 17 -> 1500 rpm; torque
    # 0x1388 = 5000 -> 0 N.m, then 0 -> -500 N.m
    log = os.path.join(tmp, "engine.log")
    with open(log, "w") as f:
        f.write("(1.000000) can0 0C0#A00F881300000000\n(1.500000) can0 0C0#7017000000000000\n")
    can_mf4 = os.path.join(tmp, "engine.mf4")
    r = subprocess.run([rtcosim, "can", "decode", log, "--dbc", dbc, "-o", can_mf4],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(can_mf4 + ".csv.part")
    channels = read_mf4(can_mf4)[0]
    by_name = {c[0]: c[6] for c in channels}
    units = {c[0].split(".")[-1]: c[1] for c in channels}
    assert units["EngineSpeed"] == "rpm" and units["EngineTorque"] == "N.m", units  # the DBC's
    assert by_name["time"] == [1.0, 1.5], by_name
    speed = [v for n, v in by_name.items() if n.endswith("EngineSpeed")]
    torque = [v for n, v in by_name.items() if n.endswith("EngineTorque")]
    assert speed == [[1000.0, 1500.0]] and torque == [[0.0, -500.0]], by_name

    # a log of wall-clock times (candump -l): the measurement starts at its
    # first frame, 2023-11-14 22:13:20.25 UTC, the time channel from 0 there
    with open(log, "w") as f:
        f.write("(1700000000.250000) can0 0C0#A00F881300000000\n"
                "(1700000000.750000) can0 0C0#7017000000000000\n")
    r = subprocess.run([rtcosim, "can", "decode", log, "--dbc", dbc, "-o", can_mf4],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    channels, start = read_mf4(can_mf4)
    assert start == 1700000000250000000, start
    assert channels[0][6] == [0.0, 0.5], channels[0]

    # run in real time on a virtual clock: the MDF holds the CSV's values
    files = {}
    for ext in ("csv", "mf4"):
        files[ext] = os.path.join(tmp, "sys." + ext)
        r = subprocess.run([rtcosim, "run", ssd, "--stop-time", "0.02", "-q", "-o", files[ext],
                            "--real-time", "--virtual-clock", "--no-calibrate"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    header, rows = read_csv(files["csv"])
    channels, _ = read_mf4(files["mf4"])
    assert [c[0] for c in channels] == header
    assert [c[1] for c in channels] == ["s", "m", "m/s", "m", "m/s"], channels
    for k, c in enumerate(channels):
        assert c[6] == [row[k] for row in rows], c[0]
print("ok")
