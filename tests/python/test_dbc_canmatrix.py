"""rtcosim's DBC reader and decoder against another implementation:
canmatrix (Debian python3-canmatrix) reads the same DBC (Intel and
Motorola signals, signed ones, an extended identifier, a multiplexor with
two multiplexed signals, a value table) and decodes 400 random frames;
`rtcosim can decode --values raw` must give the same physical values, and
`rtcosim info` the same layout."""
import csv
import os
import random
import re
import subprocess

import pytest

canmatrix = pytest.importorskip("canmatrix.formats")

DBC = """VERSION ""

BU_: A B

BO_ 256 Mixed: 8 A
 SG_ IntelU : 0|12@1+ (0.5,-10) [-10|2037.5] "km/h" B
 SG_ IntelS : 12|9@1- (0.25,0) [-64|63.75] "" B
 SG_ MotoU : 31|12@0+ (2,100) [100|8290] "rpm" B
 SG_ MotoS : 47|11@0- (0.1,5) [-97.4|107.3] "degC" B
 SG_ Flag : 63|1@0+ (1,0) [0|1] "" B

BO_ 2566914305 ExtMux: 8 B
 SG_ Sel M : 7|8@0+ (1,0) [0|255] "" A
 SG_ ModeA m1 : 15|16@0- (0.01,0) [-327.68|327.67] "" A
 SG_ ModeB m2 : 8|16@1+ (3,1) [1|196606] "" A
 SG_ Always : 48|16@1+ (1,0) [0|65535] "" A

BA_DEF_ BO_ "GenMsgCycleTime" INT 0 10000;
BA_ "GenMsgCycleTime" BO_ 256 20;
BA_ "GenMsgCycleTime" BO_ 2566914305 10;
VAL_ 256 Flag 0 "Off" 1 "On" ;
"""


def rtcosim_decode(cli, tmpdir, database, frames):
    """`rtcosim can decode --values raw` of frames [(id, extended, data)],
    one a millisecond: the CSV rows, one per frame."""
    log = os.path.join(tmpdir, "frames.log")
    with open(log, "w") as f:
        for k, (ident, extended, data) in enumerate(frames):
            f.write(f"({k // 1000:010d}.{k % 1000 * 1000:06d}) can0 "
                    f"{ident:0{8 if extended else 3}X}#{data.hex().upper()}\n")
    out = os.path.join(tmpdir, "frames.csv")
    subprocess.run([cli, "can", "decode", log, "--dbc", database, "--values", "raw", "-o", out],
                   check=True, capture_output=True)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(frames)
    return rows


def run_stimulus(cli, tmpdir, database, columns, rows, stop, nodes):
    """`rtcosim run` of a system whose one component is a CSV table
    (columns MESSAGE.SIGNAL, rows [time, values...]) behind `--can-signals
    can0=DATABASE,NODES`, 1 ms steps to `stop`: the bus's candump log."""
    from conftest import write_ssd
    table = os.path.join(tmpdir, "stim.csv")
    with open(table, "w") as f:
        f.write(",".join(["time"] + columns) + "\n")
        for row in rows:
            f.write(",".join(repr(v) for v in row) + "\n")
    ssd = write_ssd(os.path.join(tmpdir, "stim.ssd"), {})
    with open(ssd) as f:
        text = f.read()
    with open(ssd, "w") as f:
        f.write(text.replace("<ssd:Elements>\n", '<ssd:Elements>\n<ssd:Component name="stim" '
                             f'type="text/csv" source="{table}"/>\n'))
    log = os.path.join(tmpdir, "bus.log")
    r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", str(stop), "-o",
                        os.path.join(tmpdir, "o.csv"), "--can-log", log,
                        "--can-signals", f"can0={database},{nodes}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return log


@pytest.fixture
def dbc(tmpdir_private):
    path = os.path.join(tmpdir_private, "tricky.dbc")
    with open(path, "w") as f:
        f.write(DBC)
    return path


def test_decoded_values_equal_canmatrix(cli, dbc, tmpdir_private):
    db = canmatrix.loadp_flat(dbc)
    rng = random.Random(1)
    frames = []
    for k in range(400):
        fr = db.frames[k % 2]
        data = bytes(rng.getrandbits(8) for _ in range(8))
        if fr.arbitration_id.extended:  # the multiplexor selects 1, 2 or nothing
            data = bytes([rng.choice([1, 2, 3])]) + data[1:]
        frames.append((fr, data))
    rows = rtcosim_decode(cli, tmpdir_private, dbc, [
        (fr.arbitration_id.id, fr.arbitration_id.extended, data) for fr, data in frames])
    compared = 0
    for (fr, data), row in zip(frames, rows):
        for name, decoded in fr.decode(data).items():
            assert float(row[f"can0.{fr.name}.{name}"]) == pytest.approx(
                float(decoded.phys_value), rel=1e-12, abs=1e-12), (fr.name, name, data.hex())
            compared += 1
    assert compared > 1500


def test_info_shows_canmatrix_layout(cli, dbc):
    """The layout `rtcosim info` reads, against canmatrix's: start bit in the
    DBC's numbering (canmatrix's get_startbit(bit_numbering=1): Intel the
    least significant bit, Motorola the most significant), length, byte
    order, sign, factor and offset of every signal."""
    out = subprocess.run([cli, "info", dbc], check=True, capture_output=True, text=True).stdout
    db = canmatrix.loadp_flat(dbc)
    seen = 0
    for fr in db.frames:
        for s in fr.signals:
            m = re.search(rf"^{fr.name}\.{s.name}\s+(\d+)\s+(\d+) (Intel|Motorola)\s+([+-])\s+"
                          r"(\S+)\s+(\S+)", out, re.M)
            assert m, (fr.name, s.name)
            assert int(m.group(1)) == s.get_startbit(bit_numbering=1), (fr.name, s.name)
            assert int(m.group(2)) == s.size
            assert (m.group(3) == "Intel") == s.is_little_endian
            assert (m.group(4) == "-") == s.is_signed
            assert float(m.group(5)) == float(s.factor) and float(m.group(6)) == float(s.offset)
            seen += 1
    assert seen == 9


def test_encoded_frames_equal_canmatrix(cli, dbc, tmpdir_private):
    """The other direction: a CSV stimulus table whose columns are named
    MSG.SIG is DBC nodes A and B of `--can-signals`; every frame the bus
    logs must hold the bytes canmatrix encodes from the table's values at
    the frame's time (values on the signals' raw grid, so that no rounding
    rule differs; ExtMux's multiplexor picks ModeA or ModeB per block)."""
    db = canmatrix.loadp_flat(dbc)
    mixed, ext = db.frames[0], db.frames[1]
    rng = random.Random(7)

    def raw(sig, value):
        return round((value - float(sig.offset)) / float(sig.factor))

    def on_grid(sig, raw_lo, raw_hi):
        return rng.randint(raw_lo, raw_hi) * float(sig.factor) + float(sig.offset)
    columns = [f"Mixed.{s.name}" for s in mixed.signals] + [f"ExtMux.{s.name}" for s in ext.signals]
    rows, blocks = [], []
    for block in range(10):  # 20 ms each: one Mixed and two ExtMux frames
        sig = {s.name: s for s in mixed.signals + ext.signals}
        values = {
            "Mixed.IntelU": on_grid(sig["IntelU"], 0, 4095),
            "Mixed.IntelS": on_grid(sig["IntelS"], -256, 255),
            "Mixed.MotoU": on_grid(sig["MotoU"], 0, 4095),
            "Mixed.MotoS": on_grid(sig["MotoS"], -1024, 1023),
            "Mixed.Flag": float(rng.randint(0, 1)),
            "ExtMux.Sel": float(1 + block % 2),
            "ExtMux.ModeA": on_grid(sig["ModeA"], -32768, 32767),
            "ExtMux.ModeB": on_grid(sig["ModeB"], 0, 65535),
            "ExtMux.Always": float(rng.randint(0, 65535)),
        }
        blocks.append(values)
        for ms in range(20):
            rows.append([(block * 20 + ms) / 1000] + [values[c] for c in columns])
    log = run_stimulus(cli, tmpdir_private, dbc, columns, rows, 0.199, "A=stim,B=stim")
    frames = 0
    with open(log) as f:
        for line in f:
            m = re.match(r"^\((\d+)\.(\d{6})\) can0 ([0-9A-F]+)#([0-9A-F]*)$", line.strip())
            assert m, line
            us = int(m.group(1)) * 1_000_000 + int(m.group(2))
            block = blocks[us // 20000]
            # canmatrix's Frame.encode packs raw values
            if int(m.group(3), 16) == 0x100:
                want = mixed.encode({s.name: raw(s, block["Mixed." + s.name])
                                     for s in mixed.signals})
            else:
                sel = int(block["ExtMux.Sel"])
                names = ["Sel", "Always", "ModeA" if sel == 1 else "ModeB"]
                want = ext.encode({s.name: raw(s, block["ExtMux." + s.name])
                                   for s in ext.signals if s.name in names})
            assert bytes.fromhex(m.group(4)) == bytes(want), (line, bytes(want).hex())
            frames += 1
    assert frames == 10 + 20
    # and back: the bus's rx outputs one step after each frame hold the
    # table's values (no two signals of a message share a bit)
    with open(os.path.join(tmpdir_private, "o.csv")) as f:
        out = {round(float(row["time"]) * 1000): row for row in csv.DictReader(f)}
    for block, values in enumerate(blocks):
        row = out[block * 20 + 1]
        for name, value in values.items():
            if name in ("ExtMux.ModeA", "ExtMux.ModeB") and \
                    name != ("ExtMux.ModeA" if values["ExtMux.Sel"] == 1 else "ExtMux.ModeB"):
                continue
            assert float(row["can0.rx." + name]) == pytest.approx(value, abs=1e-9), (block, name)


def test_arxml_canmatrix_writes_reads_as_its_dbc(cli, dbc, tmpdir_private):
    """canmatrix converts the DBC into AUTOSAR 4 ARXML (its own writer, its
    element names and start-position convention); rtcosim reads that file
    into the layout canmatrix read from the DBC, and decodes 200 random
    frames of the non-multiplexed message to canmatrix's values. (canmatrix
    0.9.5 writes no multiplexing to AR4 I-SIGNAL-I-PDUs, so ExtMux is
    compared for its plain signals only, and its own AR4 reader fails on the
    file it wrote.)"""
    arxml = os.path.join(tmpdir_private, "tricky.arxml")
    canmatrix.dumpp(canmatrix.loadp(dbc), arxml, arVersion="4.1.0")
    out = subprocess.run([cli, "info", arxml], check=True, capture_output=True, text=True).stdout
    db = canmatrix.loadp_flat(dbc)
    for fr in db.frames:
        ident = f"0x{fr.arbitration_id.id:08X}x" if fr.arbitration_id.extended else \
            f"0x{fr.arbitration_id.id:03X}"
        assert re.search(rf"^{ident}\s+FRAME_{fr.name}\s+{fr.size}\s", out, re.M), fr.name
        for s in fr.signals:
            if s.multiplex is not None:
                continue
            m = re.search(rf"^FRAME_{fr.name}\.{s.name}\s+(\d+)\s+(\d+) (Intel|Motorola)\s+"
                          r"([+-])\s+(\S+)\s+(\S+)", out, re.M)
            assert m, (fr.name, s.name)
            assert int(m.group(1)) == s.get_startbit(bit_numbering=1), (fr.name, s.name)
            assert (int(m.group(2)), m.group(3) == "Intel", m.group(4) == "-") == \
                (s.size, s.is_little_endian, s.is_signed), (fr.name, s.name)
            assert float(m.group(5)) == float(s.factor) and float(m.group(6)) == float(s.offset)
    mixed = db.frames[0]
    rng = random.Random(3)
    datas = [bytes(rng.getrandbits(8) for _ in range(8)) for _ in range(200)]
    rows = rtcosim_decode(cli, tmpdir_private, arxml, [(0x100, False, data) for data in datas])
    for data, row in zip(datas, rows):
        for name, decoded in mixed.decode(data).items():
            assert float(row[f"can0.FRAME_Mixed.{name}"]) == pytest.approx(
                float(decoded.phys_value), rel=1e-12, abs=1e-12), (name, data.hex())


FLOAT_DBC = """VERSION ""

BU_: A B

BO_ 300 Floats: 8 A
 SG_ Pressure : 0|32@1- (0.5,1) [-1E+30|1E+30] "bar" B
 SG_ Counter : 32|16@1+ (1,0) [0|65535] "" B

BO_ 301 Precise: 8 A
 SG_ Position : 7|64@0- (1,0) [-1E+300|1E+300] "m" B

SIG_VALTYPE_ 300 Pressure : 1;
SIG_VALTYPE_ 301 Position : 2;
"""


def test_float_signals_decode_as_canmatrix(cli, tmpdir_private):
    """SIG_VALTYPE_ 1 (IEEE float, Intel, scaled) and 2 (IEEE double,
    Motorola): 200 frames of random finite numbers packed with Python's
    struct decode to canmatrix's values and to the numbers themselves
    (x 0.5 + 1 for Pressure); `info` shows f32 / f64."""
    import math
    import struct
    path = os.path.join(tmpdir_private, "floats.dbc")
    with open(path, "w") as f:
        f.write(FLOAT_DBC)
    db = canmatrix.loadp_flat(path)
    rng = random.Random(3)
    frames = []
    for k in range(200):
        if k % 2 == 0:
            v = struct.unpack("<f", struct.pack("<f", rng.uniform(-1e6, 1e6)))[0]
            data = struct.pack("<fH", v, rng.randint(0, 65535)) + b"\0\0"
            frames.append((db.frames[0], data, v * 0.5 + 1))
        else:
            v = rng.uniform(-1e12, 1e12) * 10 ** rng.randint(-20, 20)
            frames.append((db.frames[1], struct.pack(">d", v), v))
    rows = rtcosim_decode(cli, tmpdir_private, path, [
        (fr.arbitration_id.id, False, data) for fr, data, _ in frames])
    for (fr, data, want), row in zip(frames, rows):
        name = "Pressure" if fr.name == "Floats" else "Position"
        got = float(row[f"can0.{fr.name}.{name}"])
        assert math.isclose(got, want, rel_tol=1e-15), (fr.name, data.hex())
        assert math.isclose(got, float(fr.decode(data)[name].phys_value), rel_tol=1e-15)
        if fr.name == "Floats":
            assert float(row["can0.Floats.Counter"]) == struct.unpack("<H", data[4:6])[0]
    out = subprocess.run([cli, "info", path], check=True, capture_output=True, text=True).stdout
    assert re.search(r"^Floats\.Pressure\s+0\s+32 Intel\s+f32 ", out, re.M), out
    assert re.search(r"^Precise\.Position\s+7\s+64 Motorola f64 ", out, re.M), out


LONG_DBC = """VERSION ""

BU_: Ecu Gw

BO_ 100 VehicleDynamicsStatusFromTheBra: 8 Ecu
 SG_ LongitudinalAccelerationOfTheVe : 0|16@1- (0.01,0) [-327.68|327.67] "m/s2" Gw
 SG_ Short : 16|8@1+ (1,0) [0|255] "" Gw

BA_DEF_ SG_ "SystemSignalLongSymbol" STRING ;
BA_DEF_ BO_ "SystemMessageLongSymbol" STRING ;
BA_ "SystemMessageLongSymbol" BO_ 100 "VehicleDynamicsStatusFromTheBrakeSystem";
BA_ "SystemSignalLongSymbol" SG_ 100 LongitudinalAccelerationOfTheVe "LongitudinalAccelerationOfTheVehicle";
"""


def test_long_symbols_name_columns_as_canmatrix(cli, tmpdir_private):
    """Names cut to 32 characters with their SystemMessageLongSymbol /
    SystemSignalLongSymbol: `can decode`'s columns carry the names canmatrix
    reads."""
    path = os.path.join(tmpdir_private, "long.dbc")
    with open(path, "w") as f:
        f.write(LONG_DBC)
    fr = canmatrix.loadp_flat(path).frames[0]
    rows = rtcosim_decode(cli, tmpdir_private, path, [(100, False, bytes(range(8)))])
    want = {f"can0.{fr.name}.{s.name}" for s in fr.signals}
    assert want == set(rows[0]) - {"time"}
    assert "can0.VehicleDynamicsStatusFromTheBrakeSystem.LongitudinalAccelerationOfTheVehicle" in want


EXT_MUX_DBC = """VERSION ""

BU_: A B

BO_ 100 Ext: 8 A
 SG_ S0 M : 0|4@1+ (1,0) [0|15] "" B
 SG_ S1 m1M : 4|4@1+ (1,0) [0|15] "" B
 SG_ Wide m2 : 8|8@1+ (1,0) [0|255] "" B
 SG_ Split m3 : 8|12@1+ (0.5,0) [0|2047.5] "" B
 SG_ Deep m5 : 16|8@1- (1,0) [-128|127] "" B
 SG_ Always : 56|8@1+ (1,0) [0|255] "" B

SG_MUL_VAL_ 100 S1 S0 1-1;
SG_MUL_VAL_ 100 Wide S0 2-4;
SG_MUL_VAL_ 100 Split S0 6-7, 9-9;
SG_MUL_VAL_ 100 Deep S1 5-6;
"""


def test_extended_multiplexing_decodes_as_canmatrix(cli, tmpdir_private):
    """SG_MUL_VAL_ (extended multiplexing): S1 (m1M) multiplexed by S0 and
    multiplexing Deep in turn, value ranges, two ranges for Split. 60 random
    frames, each decoded alone (an empty cell: the signal is not in the
    frame): the signals present and their values are canmatrix's."""
    path = os.path.join(tmpdir_private, "ext.dbc")
    with open(path, "w") as f:
        f.write(EXT_MUX_DBC)
    fr = canmatrix.loadp_flat(path).frames[0]
    rng = random.Random(5)
    present_somewhere = set()
    for k in range(60):
        s0 = rng.choice([1, 1, 2, 3, 4, 6, 7, 8, 9])
        s1 = rng.choice([4, 5, 6, 7])
        data = bytes([s0 | s1 << 4]) + bytes(rng.getrandbits(8) for _ in range(7))
        row = rtcosim_decode(cli, tmpdir_private, path, [(100, False, data)])[0]
        ours = {c.split(".")[-1]: float(v) for c, v in row.items() if c != "time" and v != ""}
        theirs = {n: float(d.phys_value) for n, d in fr.decode(data).items()}
        assert ours == theirs, (data.hex(), ours, theirs)
        present_somewhere |= ours.keys()
    assert present_somewhere == {"S0", "S1", "Wide", "Split", "Deep", "Always"}


def test_extended_multiplexing_frames_sent_decode_in_canmatrix(cli, tmpdir_private):
    """The other direction: `--can-signals` sends Ext from a CSV table (S0,
    S1 and the values on their raw grids, a block of 20 ms each); every
    frame on the bus decodes in canmatrix to the signals the ranges select
    (S1 when S0 = 1, Deep when S1 is 5 or 6 under it, Wide for S0 2-4,
    Split for 6, 7 or 9) with the table's values."""
    path = os.path.join(tmpdir_private, "ext.dbc")
    with open(path, "w") as f:
        f.write(EXT_MUX_DBC + 'BA_DEF_ BO_ "GenMsgCycleTime" INT 0 10000;\n'
                'BA_ "GenMsgCycleTime" BO_ 100 10;\n')
    fr = canmatrix.loadp_flat(path).frames[0]
    rng = random.Random(11)
    names = ["S0", "S1", "Wide", "Split", "Deep", "Always"]
    blocks = []
    for block in range(12):
        blocks.append({"S0": float([1, 1, 2, 4, 6, 9][block % 6]),
                       "S1": float([5, 7, 6][block % 3]),
                       "Wide": float(rng.randint(0, 255)), "Split": rng.randint(0, 4095) * 0.5,
                       "Deep": float(rng.randint(-128, 127)), "Always": float(rng.randint(0, 255))})
    rows = [[(block * 20 + ms) / 1000] + [values[n] for n in names]
            for block, values in enumerate(blocks) for ms in range(20)]
    log = run_stimulus(cli, tmpdir_private, path, [f"Ext.{n}" for n in names], rows, 0.239,
                       "A=stim")
    frames = 0
    with open(log) as f:
        for line in f:
            m = re.match(r"^\((\d+)\.(\d{6})\) can0 064#([0-9A-F]{16})$", line.strip())
            assert m, line
            values = blocks[(int(m.group(1)) * 1_000_000 + int(m.group(2))) // 20000]
            s0, s1 = values["S0"], values["S1"]
            want = {"S0", "Always"}
            want |= {"S1"} if s0 == 1 else set()
            want |= {"Deep"} if s0 == 1 and s1 in (5, 6) else set()
            want |= {"Wide"} if 2 <= s0 <= 4 else set()
            want |= {"Split"} if s0 in (6, 7, 9) else set()
            got = {n: float(d.phys_value)
                   for n, d in fr.decode(bytes.fromhex(m.group(3))).items()}
            assert got == {n: values[n] for n in want}, (line, got)
            frames += 1
    assert frames == 24
