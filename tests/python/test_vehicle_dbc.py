"""`rtcosim events --dbc-out`: the CAN database of the example vehicle as it
runs, whose group g of four ECUs (engine1, ... for g = 1) sends each message
at its id + g. Truth: the shipped examples/ecus/vehicle.dbc, which the
database of four ECUs is byte for byte; the frames python-can reads from the
run's candump log, decoded by hand as vehicle.dbc lays the signals out
(EngineSpeed: bytes 0-1 little-endian x 0.25; VehicleSpeed: bytes 0-1 x
0.01) and by canmatrix (Debian python3-canmatrix) reading the database."""
import csv
import os
import subprocess

import can
import pytest


def run_events(cli, tmpdir, ecus, log=None):
    dbc = os.path.join(tmpdir, f"vehicle{ecus}.dbc")
    argv = [cli, "events", "--ecus", str(ecus), "--stop-time", "0.3", "--dbc-out", dbc]
    if log:
        argv += ["--can-log", log]
    subprocess.run(argv, check=True, capture_output=True, text=True)
    with open(dbc) as f:
        return dbc, f.read()


def test_four_ecus_give_the_shipped_database(cli, tmpdir_private):
    from conftest import source
    _, text = run_events(cli, tmpdir_private, 4)
    with open(source("examples", "ecus", "vehicle.dbc")) as f:
        assert text == f.read()


def test_every_frame_of_six_ecus_decodes_with_it(cli, tmpdir_private):
    canmatrix = pytest.importorskip("canmatrix.formats")
    log = os.path.join(tmpdir_private, "can.log")
    dbc, text = run_events(cli, tmpdir_private, 6, log)
    # group 1 has an engine and a transmission only: their messages, at id + 1
    assert "BU_: Engine Transmission Brake Body Engine1 Transmission1\n" in text
    for line in ("BO_ 193 EngineData1: 8 Engine1", "BO_ 417 VehicleSpeed1: 6 Transmission1",
                 "BO_ 1473 EngineStatus1: 4 Engine1", 'BA_ "GenMsgCycleTime" BO_ 193 10;'):
        assert line + "\n" in text
    assert "Brake1" not in text and "Body1" not in text
    # every frame's id is in the database (the shipped one lacks group 1's)
    info = subprocess.run([cli, "info", log, "--dbc", dbc], check=True, capture_output=True,
                          text=True).stdout
    assert "not in the DBC" not in info
    assert "EngineData1" in info and "VehicleSpeed1" in info
    frames = list(can.CanutilsLogReader(log))
    ids = {f.arbitration_id for f in frames}
    assert {0x0C1, 0x1A1, 0x5C1} <= ids and 0x221 not in ids
    # every signal of every frame as canmatrix (Debian python3-canmatrix)
    # decodes it with the same database, and group 1's speeds by hand
    out = os.path.join(tmpdir_private, "decoded.csv")
    subprocess.run([cli, "can", "decode", log, "--dbc", dbc, "--values", "raw", "-o", out],
                   check=True)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(frames)
    db = canmatrix.loadp_flat(dbc)
    by_id = {fr.arbitration_id.id: fr for fr in db.frames}
    assert by_id[0x0C1].name == "EngineData1" and by_id[0x1A1].name == "VehicleSpeed1"
    compared = by_hand = 0
    for f, row in zip(frames, rows):
        assert float(row["time"]) == pytest.approx(f.timestamp, abs=1e-9)
        fr = by_id[f.arbitration_id]
        for name, decoded in fr.decode(bytes(f.data)).items():
            assert float(row[f"can0.{fr.name}.{name}"]) == pytest.approx(
                float(decoded.phys_value), rel=1e-12, abs=1e-12), (fr.name, name)
            compared += 1
        if f.arbitration_id == 0x0C1:
            assert float(row["can0.EngineData1.EngineSpeed"]) == \
                int.from_bytes(f.data[0:2], "little") * 0.25
            by_hand += 1
        elif f.arbitration_id == 0x1A1:
            assert float(row["can0.VehicleSpeed1.VehicleSpeed"]) == pytest.approx(
                int.from_bytes(f.data[0:2], "little") * 0.01, abs=1e-9)
            by_hand += 1
    assert compared > 300 and by_hand > 30


def test_an_unwritable_database_path_fails_before_the_run(cli, tmpdir_private):
    bad = os.path.join(tmpdir_private, "missing", "v.dbc")
    r = subprocess.run([cli, "events", "--ecus", "8", "--dbc-out", bad], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and bad in lines[0]
    assert "events " not in r.stdout  # no run
